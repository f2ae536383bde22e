import Capture
import ConfigFile
import Foundation
import HTTPServing
import Queue
import Scanning
import Wire

/// Reading `config/station.json`: every key checked, an error naming the key for the first that is
/// wrong. ``load(path:environment:)`` reads the file's sections in order, each in a step of its own:
/// the station's identity and server, the queue, the organisations and their tokens
/// (`StationConfiguration+Organisations`), debounce and camera, the handheld scanners
/// (`StationConfiguration+Scanners`), TLS, the page (`StationConfiguration+Page`), metrics, and who
/// picks and who supports (`StationConfiguration+People`).
extension StationConfiguration {
    /// Reads and checks the configuration at `path`; `environment` supplies `tokenEnv` variables.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigError) -> StationConfiguration
    {
        var reader = try ConfigReader(contentsOf: path)
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        let identity = try readIdentity(&reader, base: base)
        let queue = try readQueue(&reader)
        var tokenFiles: [String] = []
        let organisations = try readOrganisations(
            &reader, path: path, base: base, environment: environment, tokenFiles: &tokenFiles)
        let debounce = try readDebounce(&reader)
        let camera = try readCamera(&reader)
        let scanners = try readScanners(&reader)
        let certificateAuthorityFile = try readTLS(&reader, base: base)
        let page = try readPage(&reader, base: base, tokenFiles: &tokenFiles)
        let metrics = try MetricsSettings.read(from: &reader)
        if let listen = metrics.listen, let clash = MetricsSettings.clash(listen, page.listen, key: "page.listen") {
            throw reader.error("metrics.listen", clash)
        }
        let requireSignIn = try reader.bool("requireSignIn", default: Self.defaultRequireSignIn)
        func pattern(_ key: String) throws(ConfigError) -> LabelPattern? {
            guard let text = try reader.string(key) else { return nil }
            do {
                return try LabelPattern(text)
            } catch {
                throw reader.error(key, error.problem)
            }
        }
        let workerBadgePattern = try pattern("workerBadgePattern")
        let batchLabelPattern = try pattern("batchLabelPattern")
        let workers = try readWorkers(&reader)
        var scanToSelect = Self.defaultScanToSelect
        if var options = try reader.object("scanning") {
            scanToSelect = try options.bool("scanToSelect", default: scanToSelect)
            try options.finish()
        }
        let support = try readSupport(&reader, workerBadgePattern: workerBadgePattern)
        try reader.finish()
        var configuration = StationConfiguration(
            station: identity.station, worker: identity.worker, server: identity.server,
            databasePath: identity.database, queue: queue, organisations: organisations, debounce: debounce,
            camera: camera, page: page, scanners: scanners, certificateAuthorityFile: certificateAuthorityFile,
            sourceFiles: [path] + tokenFiles)
        configuration.heartbeatSeconds = identity.heartbeatSeconds
        configuration.metrics = metrics
        configuration.requireSignIn = requireSignIn
        configuration.workerBadgePattern = workerBadgePattern
        configuration.batchLabelPattern = batchLabelPattern
        configuration.workers = workers
        configuration.scanToSelect = scanToSelect
        configuration.support = support
        return configuration
    }

    /// `relative` (a path the config names) resolved against the config's folder `base`.
    static func resolve(_ relative: String, in base: URL) -> String {
        relative.hasPrefix("/") ? relative : base.appendingPathComponent(relative).standardizedFileURL.path
    }

    /// `station`, `heartbeatSeconds`, `worker`, `server` and `database`.
    static func readIdentity(_ reader: inout ConfigReader, base: URL) throws(ConfigError) -> (
        station: String, heartbeatSeconds: Int, worker: String, server: URL, database: String
    ) {
        let station = try reader.requiredString("station")
        guard StationIdentity.isValid(station) else {
            throw reader.error("station", "\(StationIdentity.rule) (it is sent as X-ScanPick-Station)")
        }
        let heartbeatSeconds = try reader.integer(
            "heartbeatSeconds", default: Self.defaultHeartbeatSeconds, in: StationHeartbeat.intervalRange)
        let worker = try reader.requiredString("worker")
        do {
            // Sent as every action's workerId: the server's rule, checked here once, not per action.
            try FieldRules.text(worker, field: "worker")
        } catch {
            throw reader.error("worker", "\(error.problem) (it is sent as every action's workerId)")
        }
        let serverText = try reader.requiredString("server")
        let server: URL
        do throws(ServerURL.Problem) {
            server = try ServerURL.parse(serverText)
        } catch {
            throw reader.error("server", error.description)
        }
        let databaseText = try reader.string("database", default: Self.defaultDatabasePath)
        let database = resolve(databaseText, in: base)
        if let problem = DatabaseFolder.problem(forDatabase: database, configFolder: base.path, written: databaseText) {
            throw reader.error("database", problem)
        }
        return (station, heartbeatSeconds, worker, server, database)
    }

    /// `queue`: the drainer's backoff, interval, timeouts and retention.
    static func readQueue(_ reader: inout ConfigReader) throws(ConfigError) -> QueueOptions {
        // Each default is QueueOptions' own (as for debounce and camera below): written once.
        var queue = QueueOptions()
        if var options = try reader.object("queue") {
            queue.backoffInitial = try options.number(
                "backoffInitialSeconds", default: queue.backoffInitial, in: 0.1...3600)
            queue.backoffCap = try options.number("backoffCapSeconds", default: queue.backoffCap, in: 0.1...86_400)
            queue.drainInterval = try options.number(
                "drainIntervalSeconds", default: queue.drainInterval, in: 0.1...86_400)
            // Whole seconds: URLSession on Linux truncates request timeouts to them.
            queue.requestTimeout = Double(
                try options.integer("requestTimeoutSeconds", default: Int(queue.requestTimeout), in: 1...600))
            queue.sentRetention =
                try options.number("sentRetentionHours", default: queue.sentRetention / 3600, in: 0...8760) * 3600
            queue.stuckAfter =
                try options.number("stuckAfterMinutes", default: queue.stuckAfter / 60, in: 0.01...10_080) * 60
            queue.maxAnswerBytes = try options.integer(
                "maxAnswerBytes", default: queue.maxAnswerBytes, in: (64 << 10)...(1 << 30))
            try options.finish()
            guard queue.backoffCap >= queue.backoffInitial else {
                throw options.error("backoffCapSeconds", "must be at least backoffInitialSeconds")
            }
        }
        return queue
    }

    /// `debounce`: how many frames confirm a code, and the hold-off before it counts again.
    static func readDebounce(_ reader: inout ConfigReader) throws(ConfigError) -> Debouncer.Options {
        var debounce = Debouncer.Options()
        if var options = try reader.object("debounce") {
            debounce.eanUpcFrames = try options.integer("eanUpcFrames", default: debounce.eanUpcFrames, in: 1...30)
            debounce.otherFrames = try options.integer("otherFrames", default: debounce.otherFrames, in: 1...30)
            debounce.holdOff = try options.number("holdOffSeconds", default: debounce.holdOff, in: 0...60)
            try options.finish()
        }
        return debounce
    }

    /// `camera`: whether the station has one, its device, size and frame rate.
    static func readCamera(_ reader: inout ConfigReader) throws(ConfigError) -> CameraSettings {
        var camera = CameraSettings()
        if var options = try reader.object("camera") {
            camera.enabled = try options.bool("enabled", default: camera.enabled)
            camera.device = try options.string("device", default: camera.device)
            camera.width = try options.integer("width", default: camera.width, in: 16...8192)
            camera.height = try options.integer("height", default: camera.height, in: 16...8192)
            camera.fps = try options.integer("fps", default: camera.fps, in: 1...240)
            camera.scanLineSpacing = try options.integer(
                "scanLineSpacing", default: camera.scanLineSpacing, in: 1...ReaderOptions.maxScanLineSpacing)
            try options.finish()
        }
        return camera
    }

    /// `tls.caFile`: a private CA the server's certificate is signed by (checked to hold certificates).
    static func readTLS(_ reader: inout ConfigReader, base: URL) throws(ConfigError) -> String? {
        var certificateAuthorityFile: String?
        if var options = try reader.object("tls") {
            if let file = try options.string("caFile").map({ resolve($0, in: base) }) {
                do {
                    _ = try SystemTrust.certificates(inFile: file)
                } catch {
                    throw options.error("caFile", "\(file) \(error)")
                }
                certificateAuthorityFile = file
            }
            try options.finish()
        }
        return certificateAuthorityFile
    }

    /// A file's permission bits, or nil when it cannot be looked at.
    static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    /// Refuses a file holding a secret (`what`) that other users may read, naming `key` of `reader`.
    static func requirePrivate(_ file: String, _ what: String, reader: ConfigReader, key: String) throws(ConfigError) {
        guard let mode = Self.mode(of: file), mode & 0o077 != 0 else { return }
        throw reader.error(key, "\(what): \(file) is readable by other users; run `chmod 600 \(file)`")
    }
}
