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

    let configPath: String

    let devices: StationDevices

    let output: @Sendable (String) -> Void

    let log: @Sendable (String) -> Void

    let state = Mutex(RunState())

    /// True once ``stop()`` was called: the run waits on it.
    let stopped = LiveValue(false)

    /// Whether the config has scanning on (``scanningWanted(_:org:)``): the camera, recorded frames
    /// and handheld scanners wait on it, and are closed when it goes off.
    let scanning = LiveValue(false)

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

    struct RunState {
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
    func clearStoredAttention() {
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

    var isStopped: Bool { state.withLock { $0.stopped } }

    func poke() { state.withLock { $0.sync }?.poke() }

    /// `GET /metrics`, on the page or on `metrics.listen` of its own (returned, to be stopped): the
    /// queue's counts and what needs attention read as `scanpick status` reads them, so the numbers
    /// agree.
    func serveMetrics(on page: StationPage, sync: SyncService, settings: MetricsSettings) throws
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
        line.add("level", string: Logger.Level(event: "metrics_listening").name)
        line.add("event", string: "metrics_listening")
        line.add("address", string: listener.address.description)
        log(line.finished())
        return listener
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Logs a problem as one JSON line and shows it as needing attention.
    func report(_ source: String, _ code: String, _ message: String) {
        log(Self.line(code, message))
        attention.set(source, Attention(code: code, message: message))
    }

    static func line(_ event: String, _ message: String) -> String {
        var line = JSONObjectWriter()
        line.add("time", time: Date())
        line.add("level", string: Logger.Level(event: event).name)
        line.add("event", string: event)
        line.add("message", string: message)
        return line.finished()
    }
}
