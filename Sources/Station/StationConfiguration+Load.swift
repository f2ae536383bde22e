import Capture
import ConfigFile
import Digest
import Foundation
import HTTPServing
import Queue
import Scanning
import Wire

/// Reading `config/station.json`: every key checked, an error naming the key for the first that is
/// wrong.
extension StationConfiguration {
    /// Reads and checks the configuration at `path`; `environment` supplies `tokenEnv` variables.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigError) -> StationConfiguration
    {
        var reader = try ConfigReader(contentsOf: path)
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        func resolve(_ relative: String) -> String {
            relative.hasPrefix("/") ? relative : base.appendingPathComponent(relative).standardizedFileURL.path
        }
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
        let database = resolve(databaseText)
        if let problem = DatabaseFolder.problem(forDatabase: database, configFolder: base.path, written: databaseText) {
            throw reader.error("database", problem)
        }

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

        guard var organisationsReader = try reader.object("organisations"), !organisationsReader.keys.isEmpty else {
            throw reader.error("organisations", "is required: at least one organisation with its token")
        }
        var organisations: [String: Organisation] = [:]
        var tokenFiles: [String] = []
        func requirePrivate(_ file: String, _ what: String, reader: ConfigReader, key: String) throws(ConfigError) {
            guard let mode = Self.mode(of: file), mode & 0o077 != 0 else { return }
            throw reader.error(key, "\(what): \(file) is readable by other users; run `chmod 600 \(file)`")
        }
        for name in organisationsReader.keys {
            if let problem = FieldRules.organisationProblem(name) { throw reader.error("organisations", problem) }
            guard var organisation = try organisationsReader.object(name) else { continue }
            let given = (
                token: try organisation.string("token"), file: try organisation.string("tokenFile"),
                variable: try organisation.string("tokenEnv")
            )
            let named = ["token", "tokenFile", "tokenEnv"].filter(organisation.contains)
            guard named.count == 1 else {
                throw organisation.error(
                    "token",
                    named.isEmpty
                        ? "is required (or tokenFile, or tokenEnv)" : "give only one of token, tokenFile, tokenEnv")
            }
            let token: String
            if let file = given.file {
                tokenFiles.append(resolve(file))
                do {
                    token = try NamedFile.readText(resolve(file), secret: true)
                } catch {
                    throw organisation.error(
                        "tokenFile", error.othersMayChange ? "is refused: \(error)" : "cannot be read: \(error)")
                }
            } else if let variable = given.variable {
                guard let value = environment[variable], !value.isEmpty else {
                    throw organisation.error("tokenEnv", "names the environment variable \(variable), which is not set")
                }
                token = value
            } else {
                guard let value = given.token, !value.isEmpty else { throw organisation.error("token", "is empty") }
                token = value
            }
            if !Self.demoTokens.contains(token) {
                switch named[0] {
                case "token":
                    try requirePrivate(path, "holds organisation \(name)'s token", reader: organisation, key: "token")
                case "tokenFile":
                    try requirePrivate(
                        tokenFiles.last ?? path, "holds organisation \(name)'s token", reader: organisation,
                        key: "tokenFile")
                default: break
                }
            }
            var enabled = false
            var symbologies = Symbology.defaults
            if var scanning = try organisation.object("scanning") {
                enabled = try scanning.bool("enabled", default: false)
                if let list = try scanning.strings("symbologies") {
                    do {
                        symbologies = try Symbology.parseList(list.joined(separator: ","))
                    } catch {
                        throw scanning.error("symbologies", "has an \(error)")
                    }
                }
                try scanning.finish()
            }
            try organisation.finish()
            organisations[name] = Organisation(token: token, scanningEnabled: enabled, symbologies: symbologies)
        }
        try organisationsReader.finish()

        var debounce = Debouncer.Options()
        if var options = try reader.object("debounce") {
            debounce.eanUpcFrames = try options.integer("eanUpcFrames", default: debounce.eanUpcFrames, in: 1...30)
            debounce.otherFrames = try options.integer("otherFrames", default: debounce.otherFrames, in: 1...30)
            debounce.holdOff = try options.number("holdOffSeconds", default: debounce.holdOff, in: 0...60)
            try options.finish()
        }
        var camera = CameraSettings()
        if var options = try reader.object("camera") {
            camera.enabled = try options.bool("enabled", default: camera.enabled)
            camera.device = try options.string("device", default: camera.device)
            camera.width = try options.integer("width", default: camera.width, in: 16...8192)
            camera.height = try options.integer("height", default: camera.height, in: 16...8192)
            camera.fps = try options.integer("fps", default: camera.fps, in: 1...240)
            try options.finish()
        }
        var scanners: [ScannerSettings] = []
        for var options in try reader.objects("scanners") ?? [] {
            guard scanners.count < Self.maxScanners else {
                throw reader.error("scanners", "may list at most \(Self.maxScanners) scanners")
            }
            let device = try options.requiredString("device")
            // Standardized, so "/dev/../etc/x" cannot pass for a device and one scanner cannot be
            // listed twice under two spellings (the second would only fail its grab).
            let standardized = URL(fileURLWithPath: device).standardizedFileURL.path
            guard standardized.hasPrefix("/dev/"), device.utf8.count <= 4096, !device.utf8.contains(0) else {
                throw options.error("device", "must be a device path under /dev/ (e.g. /dev/input/by-id/…-event-kbd)")
            }
            guard !scanners.contains(where: { $0.device == standardized }) else {
                throw options.error("device", "\(standardized) is listed twice: each scanner once")
            }
            var scanner = ScannerSettings(device: standardized)
            if let name = try options.string("terminator") {
                guard let key = Self.terminatorKeys.first(where: { $0.key == name })?.value else {
                    let names = Self.terminatorKeys.map { "\"\($0.key)\"" }.joined(separator: " or ")
                    throw options.error("terminator", "must be \(names), not '\(name.prefix(20))'")
                }
                scanner.decoding.terminator = key
            }
            scanner.decoding.maxGap =
                Double(
                    try options.integer(
                        "maxKeyGapMilliseconds", default: Int(scanner.decoding.maxGap * 1000), in: 5...1000)) / 1000
            if let separator = try options.string("groupSeparator") {
                // Letters and digits are data: "0" as a separator would split every GTIN.
                guard (1...4).contains(separator.count),
                    separator.unicodeScalars.allSatisfy({
                        (0x21...0x7E).contains($0.value) && !CharacterSet.alphanumerics.contains($0)
                    })
                else {
                    throw options.error(
                        "groupSeparator", "must be 1 to 4 visible ASCII symbols, no letters or digits (e.g. \"~\")")
                }
                scanner.decoding.groupSeparator = separator
            }
            try options.finish()
            scanners.append(scanner)
        }
        var certificateAuthorityFile: String?
        if var options = try reader.object("tls") {
            if let file = try options.string("caFile").map(resolve) {
                do {
                    _ = try SystemTrust.certificates(inFile: file)
                } catch {
                    throw options.error("caFile", "\(file) \(error)")
                }
                certificateAuthorityFile = file
            }
            try options.finish()
        }
        var page = PageSettings()
        if var options = try reader.object("page") {
            let text = try options.string("listen", default: page.listen.description)
            do {
                page.listen = try ListenAddress(parsing: text)
            } catch {
                throw options.error("listen", "is not HOST:PORT (\(error.reason))")
            }
            page.allowRemote = try options.bool("allowRemote", default: page.allowRemote)
            guard page.listen.isLoopback || page.allowRemote else {
                throw options.error(
                    "listen", "is not a loopback address: set page.allowRemote to true to serve other machines")
            }
            for host in try options.strings("allowedHosts") ?? [] {
                guard (1...253).contains(host.utf8.count),
                    host.utf8.allSatisfy({ byte in
                        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                            || [0x2D, 0x2E, 0x3A, 0x5B, 0x5D].contains(byte)  // - . : [ ]
                    })
                else { throw options.error("allowedHosts", "has '\(host.prefix(40))', not a host name or address") }
                page.allowedHosts.append(host.lowercased())
            }
            if let file = try options.string("tokenFile").map(resolve) {
                let secret: String
                do {
                    secret = try NamedFile.readText(file, secret: true)
                } catch {
                    throw options.error(
                        "tokenFile", error.othersMayChange ? "is refused: \(error)" : "cannot be read: \(error)")
                }
                guard secret.utf8.count >= 16, secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                    throw options.error("tokenFile", "must hold a secret of at least 16 visible ASCII characters")
                }
                try requirePrivate(file, "holds the page's secret", reader: options, key: "tokenFile")
                page.secret = secret
                tokenFiles.append(file)
            }
            guard !page.allowRemote || page.secret != nil else {
                throw options.error(
                    "tokenFile", "is required with page.allowRemote: the page's API needs a secret on the network")
            }
            try options.finish()
        }
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
        var workers: [Worker] = []
        for var options in try reader.objects("workers") ?? [] {
            guard workers.count < Self.maxWorkers else {
                throw reader.error("workers", "may list at most \(Self.maxWorkers) workers")
            }
            let id = try options.requiredString("id")
            let name = try options.requiredString("name")
            do {
                try FieldRules.text(id, field: "id")
                try FieldRules.text(name, field: "name", maxLength: 64)
            } catch {
                throw options.error(error.field, "\(error.problem) (a worker's id is sent as every action's workerId)")
            }
            guard !workers.contains(where: { $0.id == id }) else {
                throw options.error("id", "'\(id.prefix(40))' is listed twice")
            }
            try options.finish()
            workers.append(Worker(id: id, name: name))
        }
        var scanToSelect = Self.defaultScanToSelect
        if var options = try reader.object("scanning") {
            scanToSelect = try options.bool("scanToSelect", default: scanToSelect)
            try options.finish()
        }
        var support = SupportSettings()
        if var options = try reader.object("support") {
            if let text = try options.string("badgePattern") {
                do {
                    support.badgePattern = try LabelPattern(text)
                } catch {
                    throw options.error("badgePattern", error.problem)
                }
            }
            let hashes = try options.strings("pinSha256") ?? []
            guard hashes.count <= Self.maxSupportPins else {
                throw options.error("pinSha256", "may list at most \(Self.maxSupportPins) hashes")
            }
            for hash in hashes where !SHA256.isHex(hash) {
                throw options.error(
                    "pinSha256",
                    "must hold 64-character lower-case hex SHA-256 hashes, not '\(hash.prefix(12))…' (make one with `printf %s PIN | sha256sum`)"
                )
            }
            support.pinSha256 = hashes
            try options.finish()
        }
        if let support = support.badgePattern, let worker = workerBadgePattern, support.source == worker.source {
            throw reader.error(
                "support.badgePattern",
                "is the same as workerBadgePattern: a support badge must be told from a picker's")
        }
        try reader.finish()
        var configuration = StationConfiguration(
            station: station, worker: worker, server: server, databasePath: database, queue: queue,
            organisations: organisations, debounce: debounce, camera: camera, page: page, scanners: scanners,
            certificateAuthorityFile: certificateAuthorityFile, sourceFiles: [path] + tokenFiles)
        configuration.heartbeatSeconds = heartbeatSeconds
        configuration.metrics = metrics
        configuration.requireSignIn = requireSignIn
        configuration.workerBadgePattern = workerBadgePattern
        configuration.batchLabelPattern = batchLabelPattern
        configuration.workers = workers
        configuration.scanToSelect = scanToSelect
        configuration.support = support
        return configuration
    }

    /// A file's permission bits, or nil when it cannot be looked at.
    static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}
