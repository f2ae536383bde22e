import Capture
import Foundation
import HTTPServing
import JSONText
import Lifecycle
import Logging
import Queue
import Scanning
import ServiceManager
import Synchronization
import Timestamps
import Wire

/// The running station, the composition root of `scanpick station`: the sync loop (drainer and
/// network monitor), the local page, the scan loop on one frame source and on each handheld scanner
/// of the config, the config watcher, the signals and systemd's notifications (ready, watchdog),
/// with their lifetimes. It keeps running whatever a source does: a camera or scanner missing at
/// start or unplugged is looked for again with backoff, a keyboard-wedge input that ends is shown,
/// and taps, the page and the drainer carry on. It re-reads its config on SIGHUP or when a config
/// file changes.
///
///     let service = StationService(configPath: path, station: station, output: { print($0) }, log: { _ in })
///     let summary = try await service.run(source: .wedge, org: nil)  // until SIGINT or SIGTERM
public final class StationService: Sendable {
    public let station: PickStation
    /// What the running station noticed that a person must see (with the queue's pause, in the pill);
    /// kept in the station database too, so `scanpick status` in another process shows it.
    public let attention: AttentionBoard
    /// The running station's numbers (its page's `GET /metrics`, its heartbeats).
    public let metrics = StationMetrics()
    private let configPath: String
    private let devices: StationDevices
    private let output: @Sendable (String) -> Void
    private let log: @Sendable (String) -> Void
    private let state = Mutex(RunState())
    /// True once ``stop()`` was called: the run waits on it.
    private let stopped = LiveValue(false)
    /// Whether the config has scanning on (``scanningWanted(_:org:)``): the camera, recorded frames
    /// and handheld scanners wait on it, and are closed when it goes off.
    private let scanning = LiveValue(false)

    /// Where scans come from. Besides these, the config's handheld scanners are read (each looked
    /// for again when it is missing or unplugged).
    public enum Source: Sendable {
        /// Recorded images in sorted order, stamped at `fps`; without `loop` the run ends after the last.
        case frames(folder: String, fps: Double, loop: Bool)
        /// A keyboard-wedge scanner on standard input: one code per line.
        case wedge
        /// A V4L2 camera (nil: `camera.device` in the config).
        case camera(device: String?)
        /// Frames from a source the caller opened (its own kind of camera, a test's frames); the run
        /// closes it when it stops. The metrics and heartbeats count it as the station's camera.
        case frameSource(any FrameSource & Sendable)
        /// Codes from a source the caller opened; the run closes it when it stops.
        case codeSource(any CodeSource)

        /// Whether the run ends when this source does (a replay has nothing more to do).
        var endsTheRun: Bool { if case .frames(_, _, loop: false) = self { true } else { false } }
    }

    /// What a run did.
    public struct Summary: Sendable, Equatable {
        public var accepted = 0
        public var rejected = 0
        public var frames = 0
        public var dropped = 0
        /// Scans that could not be recorded (the database failed): logged and shown as they happened.
        public var failed = 0
    }

    private struct RunState {
        var stopped = false
        var summary = Summary()
        /// What `stop()` closes so that a thread blocked on it returns: the camera, the scanners,
        /// sources the caller passed.
        var openSources: [String: @Sendable () -> Void] = [:]
        /// The sources of `openSources` that scanning switched off closes (it opens them again).
        var closedWhenScanningStops: Set<String> = []
        /// As ``scanning`` says, under this lock: a source opened as scanning stops is closed at once.
        var scanningOn = false
        /// The organisation the run was started for (`--org`), if named.
        var requestedOrg: String?
        /// The open batch's organisation as last read, and when (read at most once a second).
        var openBatchOrg: (org: String?, readAt: ContinuousClock.Instant)?
        /// What each source is doing, for the page ("camera: YUYV 1280x720", "scanner 1: ready").
        var sourceStates: [String: String] = [:]
        var sync: SyncService?
        var watcher: ConfigWatcher?
        var page: StationPage?
        /// A scanned batch label is being opened.
        var openingLabel = false
    }

    /// `output` gets the lines for the person at the terminal; `log` the JSON log lines; `devices`
    /// opens the cameras and handheld scanners (the machine's own unless told otherwise).
    public init(
        configPath: String, station: PickStation, devices: StationDevices = .system,
        output: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void
    ) {
        self.configPath = configPath
        self.station = station
        self.devices = devices
        self.output = output
        self.log = log
        let queue = station.queue
        let pid = getpid()
        attention = AttentionBoard { items in
            do {
                try queue.recordStationAttention(items, pid: pid)
            } catch {
                log(
                    Self.line(
                        "attention_not_stored",
                        "what needs attention could not be stored for `scanpick status`: \(error)"))
            }
        }
    }

    /// Clears what an earlier run left for `scanpick status` (at start and at a clean stop).
    private func clearStoredAttention() {
        do {
            try station.queue.recordStationAttention([], pid: getpid())
        } catch {
            log(Self.line("attention_not_stored", "what needs attention could not be cleared: \(error)"))
        }
    }

    /// Runs the station until ``stop()`` (SIGINT, SIGTERM), or until recorded frames without `loop`
    /// end. Scanning runs only when `org`'s (default: the open batch's) scanning is on; taps, the page
    /// and the drainer run regardless.
    public func run(source: Source?, org requested: String?) async throws -> Summary {
        try await run(sources: source.map { [$0] } ?? [], org: requested)
    }

    /// ``run(source:org:)`` with any number of sources at once, each on a thread of its own (a
    /// camera and a keyboard wedge, say, besides the config's handheld scanners).
    public func run(sources: [Source], org requested: String?) async throws -> Summary {
        let configuration = station.configuration
        let open = try station.cache.openBatch()
        // What can refuse the run is checked before anything is printed or started. With several
        // organisations and no batch open, none is settled yet: the page asks which batch to open,
        // and scans follow the open batch's organisation.
        if let requested { _ = try configuration.organisation(requested) }
        let org = try? station.organisation(requested: requested, preferOpenBatch: true)
        state.withLock { $0.requestedOrg = requested }
        let scanningOn = Self.scanningWanted(configuration, org: requested)
        // Frames from a folder that is not there fail now, clearly (when scanning is on: with it
        // off, no frame source is opened until it is switched on).
        for case .frames(let folder, let fps, _) in sources where scanningOn {
            _ = try RecordedFrames(folder: folder, fps: fps)
        }
        if let task = try station.cache.activeTask() {
            output(task.activeLine)
        } else {
            output(
                open == nil
                    ? "no batch is open: open one from the page, by scanning a batch label, or with scanpick batch open ID"
                    : "every task of the open batch is done (picked or short)")
        }
        if let open, let org, open.org != org, configuration.organisations[open.org]?.scanningEnabled != true {
            output("the open batch belongs to \(open.org), which has scanning off: its scans will be refused")
        }

        // Taken over before anything starts: a stop asked for while the station starts (a service
        // manager's, right after its start) ends it in order, not by the default's sudden end.
        let signals = SignalHandlers([
            SIGINT: { [weak self] in self?.stop() }, SIGTERM: { [weak self] in self?.stop() },
            SIGHUP: { [weak self] in self?.reload() },
        ])
        defer { signals.cancel() }  // on every way out, a start that fails among them
        // systemd's watchdog (under a unit with WatchdogSec=): every loop below says it is alive. A
        // drain pass may wait out a request's timeout for its refresh and its action.
        let watchdog = ServiceManager.Watchdog(log: log)
        let syncLoop = watchdog.loop(
            "sync", allowance: .seconds(2 * configuration.queue.requestTimeout + 30))
        // A probe has a 2 s timeout: one that never ends (a wedged HTTP client) leaves the pill and
        // the drain's wake-ups stale. The page's listener thread is libmicrohttpd's and unwatched.
        let probeLoop = watchdog.loop("network-probe", allowance: .seconds(30))
        // The drainer and the page run whatever the scanning flag says: taps always work.
        clearStoredAttention()
        let metrics = self.metrics
        let sync = station.syncService(
            attention: attention, logger: Logger(sink: LogSink(write: log)),
            onPass: { metrics.sent.add(UInt64(max(0, $0.sent))) },
            onPassDuration: { metrics.drainPassSeconds.observe(Self.seconds($0)) }, heartbeat: syncLoop.beat,
            probeHeartbeat: probeLoop.beat)
        checkTrust(configuration)
        // The network monitor and the sync loop as services, stopped in reverse.
        let monitorRun = try await ServiceRun.start(sync.monitor)
        let syncRun = try await ServiceRun.start(sync)
        @Sendable func stopSync() async {
            try? await syncRun.stop()
            try? await monitorRun.stop()
        }
        let heartbeats = HeartbeatSender(station: station, sync: sync, attention: attention, metrics: metrics, log: log)
        let page: StationPage
        do {
            page = try StationPage(
                station: station, sync: sync, attention: attention, settings: configuration.page, log: log)
        } catch {
            await stopSync()  // never exit with the drainer mid-request (URLSession would hang the exit)
            throw StationServiceError.pageCannotListen("\(error)")
        }
        let scrapes: StationMetricsListener?
        do {
            scrapes = try serveMetrics(on: page, sync: sync, settings: configuration.metrics)
        } catch {
            page.stop()
            await stopSync()
            throw StationServiceError.metricsCannotListen("\(error)")
        }
        takeScans(from: page)
        heartbeats.start()
        output("page: \(page.url)/")
        if let login = page.newLoginLink() { output("page login link (works once): \(page.url)\(login)") }
        let watcher = ConfigWatcher(files: configuration.sourceFiles) { [weak self] in self?.reload() }
        // `scanpick config trust-ca` (update-ca-certificates) rewrites the machine's trust store:
        // seen within a second, with no restart or SIGHUP.
        let trustWatcher = ConfigWatcher(files: [SystemTrust.bundle]) { [weak self] in self?.trustStoreChanged() }
        state.withLock {
            $0.sync = sync
            $0.watcher = watcher
            $0.page = page
        }

        if !scanningOn {
            output(
                "\(Self.scanningOff(configuration, org: requested)): no camera or scanner is opened until it is switched on; taps still work"
            )
            if sources.contains(where: \.endsTheRun) { stop() }  // a replay has nothing to do
        }
        applyScanning(configuration)
        // The wedge's read blocked on input is left to the exit: it is not waited for.
        for (index, source) in sources.enumerated() {
            guard case .wedge = source else { continue }
            let thread = Thread { [self] in _ = self.scan(source, number: index + 1, page: page, loops: nil) }
            thread.name = "scanpick-scan-\(index + 1)"
            thread.start()
        }
        let sourcesRun = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, source) in sources.enumerated() {
                    if case .wedge = source { continue }
                    if case .camera(nil) = source, !configuration.camera.enabled { continue }
                    group.addTask { await self.keepScanning(source, number: index + 1, page: page, watchdog: watchdog) }
                }
                for (index, scanner) in configuration.scanners.enumerated() {
                    let heartbeat = watchdog.loop("scanner-\(index + 1)")
                    group.addTask { await self.keepReading(scanner, number: index + 1, heartbeat: heartbeat) }
                }
            }
        }
        ServiceManager.ready(status: "page on \(page.url)/")
        await stopped.wait { $0 }

        ServiceManager.stopping()
        watchdog.stop()
        signals.cancel()
        watcher.stop()
        trustWatcher.stop()
        page.stop()
        scrapes?.stop()
        await heartbeats.stop()
        await stopSync()
        // Each scanner sees the close within a quarter of a second; a camera or replay finishes its frame.
        sourcesRun.cancel()
        await sourcesRun.value
        clearStoredAttention()
        return state.withLock { $0.summary }
    }

    /// Ends the run after the frame in hand (safe from any thread, more than once).
    public func stop() {
        let closers = state.withLock { state in
            defer { state.stopped = true }
            return Array(state.openSources.values)
        }
        for close in closers { close() }  // wakes a thread waiting for the next frame or code
        stopped.set(true)
    }

    /// Whether a source keeps reading: not once the station stops, nor, for a source that scanning
    /// switched off closes, once it is off.
    private func keepsReading(closedWhenScanningStops: Bool) -> Bool {
        state.withLock { !$0.stopped && ($0.scanningOn || !closedWhenScanningStops) }
    }

    private var isScanningOn: Bool { state.withLock { $0.scanningOn } }

    /// Whether the config has scanning on for this station: for `org` when the run was started for
    /// one (`--org`), else for any of its organisations (a scan counts only for an open batch whose
    /// organisation has it on: ``ScanLoop``).
    static func scanningWanted(_ configuration: StationConfiguration, org: String?) -> Bool {
        if let org { return configuration.organisations[org]?.scanningEnabled == true }
        return configuration.organisations.values.contains { $0.scanningEnabled }
    }

    private static func scanningOff(_ configuration: StationConfiguration, org requested: String?) -> String {
        let only = configuration.organisations.count == 1 ? configuration.organisations.keys.first : nil
        guard let org = requested ?? only else {
            return "scanning is off for every organisation (organisations.*.scanning.enabled)"
        }
        return "scanning is off for organisation \(org) (organisations.\(org).scanning.enabled is false)"
    }

    /// Opens the camera, recorded frames and handheld scanners or closes them, as `configuration`
    /// says (at start and on every reload: within a frame or a quarter of a second).
    private func applyScanning(_ configuration: StationConfiguration) {
        let change = state.withLock { state -> (on: Bool, org: String?, closers: [@Sendable () -> Void])? in
            let on = Self.scanningWanted(configuration, org: state.requestedOrg)
            guard state.scanningOn != on else { return nil }
            state.scanningOn = on
            var closers: [@Sendable () -> Void] = []
            if !on {
                for name in state.closedWhenScanningStops {
                    if let close = state.openSources.removeValue(forKey: name) { closers.append(close) }
                }
                state.closedWhenScanningStops = []
                // What the closed sources said (found, lost) no longer holds; each says again when reopened.
                state.sourceStates = state.sourceStates.filter { $0.key == "wedge" }
            }
            return (on, state.requestedOrg, closers)
        }
        guard let change else { return }
        let on = change.on
        scanning.set(on)
        for close in change.closers { close() }
        if on {
            log(Self.line("scanning_on", "scanning is on: the camera and handheld scanners are opened"))
        } else {
            metrics.setCamera(.off)
            attention.set("camera", nil)
            log(
                Self.line(
                    "scanning_off",
                    "\(Self.scanningOff(configuration, org: change.org)): the camera and handheld scanners are closed"))
        }
        showSources()
    }

    /// The reader's symbologies and the debounce for the next frame: the symbologies of the
    /// organisation scans are for (`--org`'s, else the open batch's, else those of every organisation
    /// with scanning on).
    private func scanSettings() -> ScanLoop.Settings {
        let configuration = station.configuration
        let org = state.withLock { $0.requestedOrg } ?? openBatchOrg()
        let symbologies: Set<Symbology>
        if let org, let organisation = configuration.organisations[org] {
            symbologies = organisation.symbologies
        } else {
            let on = configuration.organisations.values.filter(\.scanningEnabled)
            symbologies = on.isEmpty ? Symbology.defaults : on.reduce(into: []) { $0.formUnion($1.symbologies) }
        }
        return ScanLoop.Settings(reader: ReaderOptions(symbologies: symbologies), debounce: configuration.debounce)
    }

    /// The open batch's organisation, read from the cache at most once a second (a frame asks).
    private func openBatchOrg() -> String? {
        let now = ContinuousClock.now
        if let known = state.withLock({ $0.openBatchOrg }), now - known.readAt < .seconds(1) { return known.org }
        let org: String?
        do {
            org = try station.cache.openBatch()?.org
        } catch {
            return state.withLock { $0.openBatchOrg?.org }  // read again with the next frame
        }
        state.withLock { $0.openBatchOrg = (org, now) }
        return org
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Re-reads the config file: the server, tokens, worker, scanning settings and the page's access
    /// (a rotated secret) apply at once and a paused queue looks again; keys that need a restart are
    /// shown as needing attention; a config that does not load is shown and the previous one kept.
    public func reload() {
        let (watcher, page) = state.withLock { ($0.watcher, $0.page) }
        var line = JSONObjectWriter()
        line.add("time", time: Date())
        do {
            let configuration = try StationConfiguration.load(path: configPath)
            attention.set("config", nil)
            let restart = station.apply(configuration)
            applyScanning(station.configuration)
            checkTrust(configuration)
            page?.apply(station.configuration.page)
            attention.set(
                "restart",
                restart.isEmpty
                    ? nil
                    : Attention(
                        code: "restart_needed",
                        message:
                            "the config changed \(restart.joined(separator: ", ")), which apply when the station restarts: restart it (the running station keeps the previous values)"
                    ))
            watcher?.watch(configuration.sourceFiles)
            resumeQueue(because: "the corrected config is applied")
            if let page, let login = page.newLoginLink() {
                output("page login link (works once): \(page.url)\(login)")
            }
            line.add("event", string: "config_reloaded")
            if !restart.isEmpty {
                line.add("needsRestart", raw: "[" + restart.map { "\"\($0)\"" }.joined(separator: ",") + "]")
            }
        } catch {
            attention.set(
                "config",
                Attention(
                    code: "config_invalid",
                    message: "the station config does not load (\(error)): the station keeps its previous settings"))
            line.add("event", string: "config_invalid")
            line.add("error", string: String(describing: error))
        }
        log(line.finished())
    }

    /// The machine's trust store changed: a `tls.caFile` it now trusts no longer needs attention,
    /// and a queue paused on a certificate looks again at once (not after its backoff).
    private func trustStoreChanged() {
        checkTrust(station.configuration)
        resumeQueue(because: "the machine's trust store changed")
    }

    /// Lifts a pause of the queue (a fault of the station, perhaps just fixed) and starts a pass at
    /// once. Should lifting it fail, what changed (`what`) is in force all the same, and the drainer
    /// looks again on its own after the backoff cap.
    private func resumeQueue(because what: String) {
        do {
            try station.queue.resume()
            attention.set("resume", nil)
        } catch {
            report(
                "resume", "resume_failed",
                "\(what), but the queue's pause could not be lifted (\(error)); it is tried again after the backoff cap, or on the next change"
            )
        }
        state.withLock { $0.sync }?.poke()
    }

    /// Shows a `tls.caFile` that the machine does not trust yet (its HTTPS would fail on it).
    private func checkTrust(_ configuration: StationConfiguration) {
        guard let file = configuration.certificateAuthorityFile, !SystemTrust.trusts(certificatesIn: file) else {
            attention.set("tls-ca", nil)
            return
        }
        let message = SystemTrust.notInstalled(file, config: configPath)
        output(message)
        attention.set("tls-ca", Attention(code: "tls_ca_not_installed", message: message))
    }

    // MARK: The scan threads

    /// Scans one source for as long as the station runs. The camera and recorded frames are opened
    /// when scanning comes on and closed when it goes off (each open period on a thread of its own);
    /// a source the caller opened is read throughout, its scans dropped while scanning is off.
    private func keepScanning(
        _ source: Source, number: Int, page: StationPage, watchdog: ServiceManager.Watchdog
    ) async {
        let loops: (capture: ServiceManager.Watchdog.Loop, decode: ServiceManager.Watchdog.Loop)?
        if case .camera = source {
            loops = (watchdog.loop("capture"), watchdog.loop("decode"))
            loops?.capture.idle()  // until scanning opens the camera
            loops?.decode.idle()
        } else {
            loops = nil
        }
        let reopens: Bool = if case .frames = source { true } else if case .camera = source { true } else { false }
        while !Task.isCancelled {
            if reopens { await scanning.wait { $0 } }
            guard !Task.isCancelled, keepsReading(closedWhenScanningStops: false) else { return }
            let again = await BlockingExecutor.runOnOwnThread(named: "scanpick-scan-\(number)") {
                self.scan(source, number: number, page: page, loops: loops)
            }
            guard again else { return }
        }
    }

    /// Reads `source` until it ends, the station stops or (for the camera and recorded frames)
    /// scanning goes off; returns whether to open it again when scanning comes back on.
    private func scan(
        _ source: Source, number: Int, page: StationPage,
        loops: (capture: ServiceManager.Watchdog.Loop, decode: ServiceManager.Watchdog.Loop)?
    ) -> Bool {
        let configuration = station.configuration
        let loop = ScanLoop(
            station: station, settings: scanSettings(),
            live: { [weak self] in self?.scanSettings() ?? .init(reader: ReaderOptions(), debounce: .init()) },
            log: log, onEnqueue: { [weak self] in self?.poke() }, decodeTimes: metrics.decodeSeconds)
        let name = "source-\(number)"
        switch source {
        case .frames(let folder, let fps, let repeating):
            do throws(any Error) {
                let frames = try RecordedFrames(folder: folder, fps: fps, loop: repeating)
                // Nothing to close: the loop looks at the station and at scanning before each frame.
                guard opened(name, closing: {}, closedWhenScanningStops: true) else { return true }
                defer { closed(name) }
                try scanFrames(frames, loop: loop, page: page, closedWhenScanningStops: true)
            } catch {
                report("scanner", "frames_failed", "reading the recorded frames failed: \(error)")
            }
            if keepsReading(closedWhenScanningStops: true) { stop() }  // a replay ends with its frames
            return true
        case .frameSource(let frames):
            // The caller's source stands for a camera: the metrics and heartbeats show it capturing,
            // its dropped frames, and missing once it fails (not in use once it has ended).
            _ = opened(name, closing: frames.close, closedWhenScanningStops: false)
            metrics.readDroppedFrames { frames.droppedFrames }
            metrics.setCamera(.ok)
            do {
                try scanFrames(frames, loop: loop, page: page, closedWhenScanningStops: false)
                metrics.setCamera(.off)
            } catch {
                metrics.setCamera(.missing)
                if !isStopped { report(name, "frames_failed", "reading frames failed: \(error)") }
            }
            state.withLock { $0.summary.dropped = frames.droppedFrames }
            return false
        case .camera(let requested):
            let device = requested ?? configuration.camera.device
            let camera = V4L2Camera.waitingFor(
                device: device, width: configuration.camera.width, height: configuration.camera.height,
                fps: configuration.camera.fps, report: { [log] in log(Self.line("camera", $0)) },
                onState: { [weak self] state in self?.camera(device, state) }, heartbeat: { loops?.capture.beat($0) },
                open: devices.openCamera)
            defer { state.withLock { $0.summary.dropped += camera.droppedFrames } }
            guard opened("camera", closing: camera.close, closedWhenScanningStops: true) else { return true }
            defer { closed("camera") }
            metrics.readDroppedFrames { camera.droppedFrames }
            // The camera looks for its device again by itself; its frames end only when it is closed,
            // so an error here is one it could not get past, and the picker must hear of it.
            do {
                try scanFrames(camera, loop: loop, page: page, decode: loops?.decode, closedWhenScanningStops: true)
            } catch {
                guard keepsReading(closedWhenScanningStops: true) else { return true }
                report(
                    "camera", "frames_failed",
                    "the camera stopped: \(error); no more scans from it until the station restarts; taps still work")
                return false
            }
            return true
        case .wedge:
            show("wedge", "scanner: reading")
            var ending = "the keyboard-wedge scanner's input ended"
            do { try scanCodes(StandardInputCodes(), loop: loop, device: "standard input") } catch {
                ending = "reading the keyboard-wedge scanner's input failed: \(error)"
            }
            if !isStopped {
                show("wedge", "scanner: input ended")
                report(
                    "scanner", "scanner_input_ended",
                    "\(ending): no more scans are read until the station restarts; taps still work")
            }
            return false
        case .codeSource(let codes):
            _ = opened(name, closing: codes.close, closedWhenScanningStops: false)
            do { try scanCodes(codes, loop: loop, device: name) } catch {
                if !isStopped { report(name, "scanner_lost", "reading codes failed: \(error)") }
            }
            return false
        }
    }

    /// Remembers how to close a source, so that ``stop()`` (and, when `closedWhenScanningStops`,
    /// scanning switched off) wakes the thread blocked on it. Returns false when it was closed at
    /// once instead: the station has stopped, or scanning went off meanwhile.
    private func opened(
        _ name: String, closing close: @escaping @Sendable () -> Void, closedWhenScanningStops: Bool
    ) -> Bool {
        let keep = state.withLock { state in
            guard !state.stopped, state.scanningOn || !closedWhenScanningStops else { return false }
            state.openSources[name] = close
            if closedWhenScanningStops { state.closedWhenScanningStops.insert(name) }
            return true
        }
        if !keep { close() }
        return keep
    }

    /// Forgets a source that was closed (or ended).
    private func closed(_ name: String) {
        state.withLock { state in
            state.openSources[name] = nil
            state.closedWhenScanningStops.remove(name)
        }
    }

    /// The frame loop, whatever the frames' source: each frame to the scan loop (and the page's
    /// preview when someone watches) until the source ends or the station stops.
    private func scanFrames(
        _ frames: any FrameSource, loop: ScanLoop, page: StationPage, decode: ServiceManager.Watchdog.Loop? = nil,
        closedWhenScanningStops: Bool
    ) throws {
        defer { decode?.idle() }
        var skipped = SkippedFrames()
        defer { skipped.report(frames.skippedFrames, final: true, log: log) }
        while keepsReading(closedWhenScanningStops: closedWhenScanningStops) {
            decode?.idle()  // waiting for a frame is the capture loop's to watch
            guard let frame = try frames.nextFrame() else { return }
            skipped.report(frames.skippedFrames, log: log)
            guard isScanningOn else { continue }  // a caller's source, read on while scanning is off
            decode?.alive()
            handle { try loop.process(frame) }
            metrics.framesCaptured.add()
            page.preview.offer(frame.image) { loop.sightings() }
            state.withLock { $0.summary.frames += 1 }
        }
    }

    /// The code loop, whatever the codes' source: each code is one scan; keys a person typed are
    /// refused and logged without what they typed (it may be anything, a password).
    private func scanCodes(
        _ codes: any CodeSource, loop: ScanLoop, device: String, heartbeat: ServiceManager.Watchdog.Loop? = nil
    ) throws {
        while !isStopped {
            heartbeat?.idle()  // a scanner may rest for hours
            guard let read = try codes.nextRead(), !isStopped else { return }
            heartbeat?.alive()
            guard isScanningOn else {
                log(Self.line("scan_ignored", "\(device): a code read while scanning is off was not counted"))
                continue
            }
            switch read {
            case .code(let code):
                handle { [try loop.submit(code: code)] }
            case .refused(let typed, let reason):
                metrics.refused("not_a_scan")
                log(Self.line("scanner_keys_refused", "\(device): \(typed.count) characters refused: \(reason)"))
                state.withLock { $0.page }?.show(
                    scanAccepted: false, message: "✗ Not a scan (keys typed, or some were lost): scan the item again")
            }
        }
    }

    /// Codes typed into the page by a handheld scanner the station does not hold (a burst of keys
    /// ended by Enter): each a scan, through the checks, banner, sound, log and metrics of the
    /// station's own scanners, one at a time.
    private func takeScans(from page: StationPage) {
        let loop = Mutex(
            ScanLoop(
                station: station, reader: ReaderOptions(), debounce: station.configuration.debounce, log: log,
                onEnqueue: { [weak self] in self?.poke() }))
        page.takeScans { [weak self] code in
            guard let self else { return nil }
            var answer: StationPage.ScanAnswer?
            self.handle {
                let outcome = try loop.withLock { try $0.submit(code: code) }
                answer = StationPage.ScanAnswer(accepted: outcome.verdict.isAccepted, message: outcome.verdict.message)
                return [outcome]
            }
            return answer
        }
    }

    /// Handles one frame's (or line's) scans; a failure is logged and shown, and the loop goes on.
    private func handle(_ body: () throws -> [ScanLoop.Outcome]) {
        let page = state.withLock { $0.page }
        do {
            for outcome in try body() {
                metrics.scan(outcome.verdict)
                var counted: PickTask?
                if case .accepted(var task, let units) = outcome.verdict {
                    task.qtyPicked += units  // both within 0...100000: checked by the validator
                    counted = task
                }
                page?.show(feedback(for: outcome.verdict), message: outcome.verdict.message, task: counted)
                if case .batchLabel(let batchId) = outcome.verdict { open(labelled: batchId) }
                state.withLock {
                    if outcome.verdict.isAccepted { $0.summary.accepted += 1 } else { $0.summary.rejected += 1 }
                }
                output(outcome.verdict.message)
            }
            attention.set("scan", nil)
        } catch {
            metrics.refused("not_recorded")
            state.withLock { $0.summary.failed += 1 }
            report("scan", "scan_failed", "a scan could not be recorded: \(error)")
            page?.show(
                scanAccepted: false,
                message:
                    "✗ The scan was not recorded (the station's storage failed): scan again; if it repeats, call support"
            )
        }
    }

    /// The sound and flash of a scan's outcome: a count that completes its task, or the whole batch,
    /// has its own.
    private func feedback(for verdict: ScanValidator.Verdict) -> StationJSON.Feedback {
        switch verdict {
        case .accepted(let task, let units):
            guard task.qtyPicked + units >= task.qtyRequired else { return .accepted }
            let batchDone = (try? station.cache.openBatchState())??.complete ?? false
            return batchDone ? .batchComplete : .taskComplete
        case .batchLabel, .workerBadge: return .info
        default: return .refused
        }
    }

    /// A scanned batch label: opens that batch (of the open batch's organisation, or the only
    /// configured one) from the server, or from the cache offline, and says how it went.
    private func open(labelled batchId: String) {
        let page = state.withLock { $0.page }
        let station = self.station
        let org: String
        do {
            org = try station.organisation(requested: nil, preferOpenBatch: true)
        } catch {
            page?.show(
                .refused,
                message: "✗ That batch label cannot be opened by scanning here: choose the batch under Batches")
            log(Self.line("batch_open_failed", "batch \(batchId) from its scanned label: \(error)"))
            return
        }
        // One opening at a time: a label held in view, or scanned again and again, asks the server once.
        let first = state.withLock { state in
            defer { state.openingLabel = true }
            return !state.openingLabel
        }
        guard first else { return }
        page?.show(.info, message: "Opening the scanned batch …")
        let log = self.log
        Task { [weak self] in
            defer { self?.state.withLock { $0.openingLabel = false } }
            do {
                let opening = try await station.openBatch(batchId, org: org)
                let how = if case .reopenedFromCache = opening { " (offline: from the station's cache)" } else { "" }
                let lines = (try? station.cache.tasks().count).map { ": \($0) lines" } ?? ""
                page?.show(.info, message: "Batch open\(lines)\(how)")
                log(Self.line("batch_opened", "batch \(batchId) (\(org)) opened from its scanned label\(how)"))
            } catch {
                page?.show(.refused, message: "✗ That batch could not be opened: \(BatchOpening.pickerReason(error))")
                log(Self.line("batch_open_failed", "batch \(batchId) (\(org)) from its scanned label: \(error)"))
            }
        }
    }

    // MARK: Handheld scanners

    /// Reads one handheld scanner for as long as the station runs and scanning is on: opened (and
    /// grabbed) when scanning comes on, closed when it goes off; the device is read on a thread of
    /// its own while it is open.
    private func keepReading(
        _ settings: StationConfiguration.ScannerSettings, number: Int, heartbeat: ServiceManager.Watchdog.Loop
    ) async {
        metrics.setScanner(number, ready: false)
        heartbeat.idle()
        while !Task.isCancelled {
            await scanning.wait { $0 }
            guard !Task.isCancelled, keepsReading(closedWhenScanningStops: true) else { break }
            await BlockingExecutor.runOnOwnThread(named: "scanpick-scanner-\(number)") {
                self.read(settings, number: number, heartbeat: heartbeat)
            }
            metrics.setScanner(number, ready: false)
        }
        heartbeat.idle()
    }

    /// Reads one handheld scanner until the station stops or scanning goes off: opened (and
    /// grabbed) when it is there, looked for again with backoff when it is not or is unplugged. Each
    /// code is one scan (the scanner has already made one deliberate read of it: no debounce); keys
    /// typed by a person are refused and logged without what they typed.
    private func read(
        _ settings: StationConfiguration.ScannerSettings, number: Int, heartbeat: ServiceManager.Watchdog.Loop
    ) {
        let source = "scanner-\(number)"
        let loop = ScanLoop(
            station: station, reader: ReaderOptions(), debounce: station.configuration.debounce, log: log,
            onEnqueue: { [weak self] in self?.poke() })
        var backoff = 0.5
        var lastProblem: String?
        while keepsReading(closedWhenScanningStops: true) {
            heartbeat.alive()
            let scanner: any CodeSource
            do {
                scanner = try devices.openScanner(settings.device, settings.decoding)
            } catch {
                show(source, "scanner \(number): not found")
                if error.description != lastProblem {  // said once per problem, not per retry
                    lastProblem = error.description
                    report(source, "scanner_unavailable", "\(error); looking for it again")
                }
                heartbeat.idle()
                pause(seconds: backoff)
                backoff = min(backoff * 2, 5)
                continue
            }
            guard opened(source, closing: scanner.close, closedWhenScanningStops: true) else { break }
            backoff = 0.5
            lastProblem = nil
            metrics.setScanner(number, ready: true)
            attention.set(source, nil)
            output("scanner \(settings.device): \(scanner.name)")
            show(source, "scanner \(number): ready")
            log(Self.line("scanner_ready", "\(settings.device): \(scanner.name), grabbed"))
            do {
                try scanCodes(scanner, loop: loop, device: settings.device, heartbeat: heartbeat)  // ends when closed
            } catch  where keepsReading(closedWhenScanningStops: true) {
                metrics.setScanner(number, ready: false)
                show(source, "scanner \(number): unplugged")
                report(source, "scanner_lost", "\(error); looking for it again")
                lastProblem = nil
            } catch {}  // closed as scanning went off, or the station stopped
            closed(source)
        }
        state.withLock { _ = $0.sourceStates.removeValue(forKey: source) }
        attention.set(source, nil)
        heartbeat.idle()
    }

    /// Sleeps for `seconds`, or less when the station stops or scanning goes off.
    private func pause(seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while keepsReading(closedWhenScanningStops: true), Date() < end {
            Thread.sleep(forTimeInterval: min(0.1, end.timeIntervalSinceNow))
        }
    }

    /// Shows what one source is doing on the page, next to the others'.
    private func show(_ source: String, _ text: String) {
        state.withLock { $0.sourceStates[source] = text }
        showSources()
    }

    /// Shows on the page what the sources are doing ("scanning off" while it is).
    private func showSources() {
        let (page, summary) = state.withLock { state in
            let states = state.sourceStates.sorted { $0.key < $1.key }.map(\.value).joined(separator: " · ")
            return (state.page, state.scanningOn ? states : "scanning off")
        }
        page?.show(scanner: summary)
    }

    private func camera(_ device: String, _ state: V4L2Camera.CameraState) {
        switch state {
        case .capturing(let format):
            metrics.setCamera(.ok)
            output("camera \(device): \(format)")
            show("camera", "camera: \(format)")
            attention.set("camera", nil)
        case .unavailable(let reason):
            metrics.setCamera(.missing)
            show("camera", "camera: not found")
            attention.set(
                "camera",
                Attention(code: "camera_not_found", message: "camera: \(reason); looking for it again with backoff"))
        }
    }

    private func poke() { state.withLock { $0.sync }?.poke() }

    /// `GET /metrics`, on the page or on `metrics.listen` of its own (returned, to be stopped): the
    /// queue's counts and what needs attention read as `scanpick status` reads them, so the numbers
    /// agree.
    private func serveMetrics(on page: StationPage, sync: SyncService, settings: MetricsSettings) throws
        -> StationMetricsListener?
    {
        let (station, attention, metrics) = (station, attention, metrics)
        let text: @Sendable () -> [UInt8] = {
            var others = attention.current
            let counts: QueueCounts?
            do {
                counts = try station.queue.counts()
            } catch {
                counts = nil  // the gauges are left out, and the failure is counted as needing attention
                others.append(StationJSON.databaseFailed(error))
            }
            let items = StationJSON.attention(station, others: others)
            return metrics.text(queue: counts, attention: items.count, online: sync.isOnline).bytes
        }
        guard let listen = settings.listen else {
            page.serveMetrics(text)
            return nil
        }
        let access = settings.access(main: page.address, config: "the station config")
        let listener = try StationMetricsListener(listen: listen, access: access, text: text)
        var line = JSONObjectWriter()
        line.add("time", time: Date())
        line.add("event", string: "metrics_listening")
        line.add("address", string: listener.address.description)
        log(line.finished())
        return listener
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Logs a problem as one JSON line and shows it as needing attention.
    private func report(_ source: String, _ code: String, _ message: String) {
        log(Self.line(code, message))
        attention.set(source, Attention(code: code, message: message))
    }

    /// Frames a source could not read (an unreadable recorded file, a corrupt MJPEG frame) are said
    /// in the log, at most once every 10 seconds however fast they come, and once more at the end.
    private struct SkippedFrames {
        private var said = 0
        private var saidAt: ContinuousClock.Instant?

        mutating func report(_ total: Int, final: Bool = false, log: (String) -> Void) {
            guard total > said, final || saidAt.map({ ContinuousClock.now - $0 >= .seconds(10) }) ?? true else {
                return
            }
            log(
                StationService.line(
                    "frames_skipped", "\(total - said) frames could not be read and were skipped (\(total) so far)"))
            said = total
            saidAt = .now
        }
    }

    private static func line(_ event: String, _ message: String) -> String {
        var line = JSONObjectWriter()
        line.add("time", time: Date())
        line.add("event", string: event)
        line.add("message", string: message)
        return line.finished()
    }
}

/// Why the station cannot start.
public enum StationServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The page cannot listen where the config says (the address in use, not an address here).
    case pageCannotListen(String)
    /// `/metrics` cannot listen where the config's `metrics.listen` says.
    case metricsCannotListen(String)

    public var description: String {
        switch self {
        case .pageCannotListen(let reason): "\(reason) (the address is the config's \"page.listen\")"
        case .metricsCannotListen(let reason): "\(reason) (the address is the config's \"metrics.listen\")"
        }
    }
}
