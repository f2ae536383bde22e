import Capture
import Foundation
import Lifecycle
import Logging
import Queue
import ServiceManager
import Synchronization

/// The running station, the composition root of `scanpick station`: its parts built as a list of
/// services before anything runs (``makeServices(sources:org:reloads:)``: the network monitor, the
/// sync loop, the page, `/metrics`' own listener, the heartbeats, the config reload, one reader per
/// frame source and per handheld scanner), then run by a ``ServiceGroup``: started in that order,
/// stopped in reverse on SIGINT, SIGTERM or ``stop()``, with systemd's ready, stopping and watchdog.
/// It keeps running whatever a source does: a camera or scanner missing at start or unplugged is
/// looked for again with backoff, a keyboard-wedge input that ends is shown, and taps, the page and
/// the drainer carry on. It re-reads its config on SIGHUP or when a config file changes.
///
///     let runtime = StationRuntime(configPath: path, station: station, output: { print($0) }, logger: logger)
///     let summary = try await runtime.run(sources: [.wedge], org: nil, signals: .takeOver())
public final class StationRuntime: Sendable {
    public let station: PickStation

    /// What the running station noticed that a person must see (with the queue's pause, in the pill);
    /// kept in the station database too, so `scanpick status` in another process shows it.
    public let attention: AttentionBoard

    /// The running station's numbers (its page's `GET /metrics`, its heartbeats).
    public let metrics = StationMetrics()

    let configPath: String

    let devices: StationDevices

    let output: @Sendable (String) -> Void

    /// Where the station's events go, one JSON line each.
    let logger: Logger

    let state = Mutex(RunState())

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
        /// The readers whose service was stopped: their reads end, and what they open is closed.
        var stoppedSources: Set<String> = []
        var summary = Summary()
        /// What stopping a reader closes so that a thread blocked on it returns: the camera, the
        /// scanners, sources the caller passed (by the reader's service name).
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
        /// The parts that reloads, scans and sources reach, set once as the services are built.
        var parts: Parts?
        /// The group running the services (``stop()`` asks it); a stop asked for before it exists
        /// is kept in `stopAsked`.
        var group: ServiceGroup?
        var stopAsked = false
        /// A scanned batch label is being opened.
        var openingLabel = false
    }

    /// The parts of a run that others reach while it runs.
    struct Parts {
        let sync: SyncService
        let page: StationPage
        let reload: ConfigReload
    }

    /// `output` gets the lines for the person at the terminal; `logger` the events; `devices` opens
    /// the cameras and handheld scanners (the machine's own unless told otherwise).
    public init(
        configPath: String, station: PickStation, devices: StationDevices = .system,
        output: @escaping @Sendable (String) -> Void, logger: Logger
    ) {
        self.configPath = configPath
        self.station = station
        self.devices = devices
        self.output = output
        self.logger = logger
        let queue = station.queue
        let pid = getpid()
        attention = AttentionBoard { items in
            do {
                try queue.recordStationAttention(items, pid: pid)
            } catch {
                logger.event(
                    "attention_not_stored",
                    ["message": "what needs attention could not be stored for `scanpick status`: \(error)"])
            }
        }
    }

    /// Clears what an earlier run left for `scanpick status` (at start and at a clean stop).
    func clearStoredAttention() {
        do {
            try station.queue.recordStationAttention([], pid: getpid())
        } catch {
            log("attention_not_stored", "what needs attention could not be cleared: \(error)")
        }
    }

    /// Runs the station until ``stop()`` (SIGINT, SIGTERM), or until recorded frames without `loop`
    /// end. Scanning runs only when `org`'s (default: the open batch's) scanning is on; taps, the page
    /// and the drainer run regardless.
    public func run(source: Source?, org requested: String?, signals: UnixSignals? = nil) async throws -> Summary {
        try await run(sources: source.map { [$0] } ?? [], org: requested, signals: signals)
    }

    /// ``run(source:org:signals:)`` with any number of sources at once, each read by a service of
    /// its own (a camera and a keyboard wedge, say, besides the config's handheld scanners).
    /// `signals` (nil: none, as in a test) stop the station (SIGINT, SIGTERM) and reload it (SIGHUP).
    /// A service that fails to start stops those started before it, in reverse, and is thrown.
    public func run(sources: [Source], org requested: String?, signals: UnixSignals? = nil) async throws -> Summary {
        let (services, watchdog): ([any Service], ServiceManager.Watchdog)
        do {
            // The checks and the services' making read the database, the config's files and the
            // page's own: blocking work, off the task pool.
            let reloads = signals?.reloads
            (services, watchdog) = try await BlockingExecutor.shared.run { [self] in
                try check(sources: sources, org: requested)
                return try makeServices(sources: sources, org: requested, reloads: reloads)
            }
        } catch {
            logger.error("start_failed", ["message": .error(error)])
            throw error
        }
        let page = state.withLock { $0.parts?.page }
        let group = ServiceGroup(
            services, stopSignals: signals?.stops, watchdog: watchdog,
            readyStatus: { "page on \(page?.url ?? "?")/" }, logger: logger)
        if state.withLock({ state in
            state.group = group
            return state.stopAsked
        }) {
            group.stop()
        }
        try await group.run()
        await BlockingExecutor.shared.run { [self] in clearStoredAttention() }
        return state.withLock { $0.summary }
    }

    /// What can refuse the run, checked before anything is started (and the active task printed).
    private func check(sources: [Source], org requested: String?) throws {
        let configuration = station.configuration
        let open = try station.cache.openBatch()
        // What can refuse the run is checked before anything is printed or started. With several
        // organisations and no batch open, none is settled yet: the page asks which batch to open,
        // and scans follow the open batch's organisation.
        if let requested { _ = try configuration.organisation(requested) }
        let org = try? station.organisation(requested: requested, preferOpenBatch: true)
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
    }

    /// Stops the run: its services in reverse order, each reader after the frame or code in hand
    /// (safe from any thread, more than once, before the run has started too).
    public func stop() {
        let group = state.withLock { state in
            state.stopAsked = true
            return state.group
        }
        group?.stop()
    }

    /// Ends the reader `name`'s reads: a thread blocked on its device or source is woken by its
    /// close, and what it opens from now on is closed at once.
    func stopSource(_ name: String) {
        let close = state.withLock { state in
            state.stoppedSources.insert(name)
            state.closedWhenScanningStops.remove(name)
            return state.openSources.removeValue(forKey: name)
        }
        close?()
    }

    /// Whether the reader `name` was stopped.
    func isStopped(_ name: String) -> Bool { state.withLock { $0.stoppedSources.contains(name) } }

    func poke() { state.withLock { $0.parts?.sync }?.poke() }

    /// `GET /metrics`' text: the queue's counts and what needs attention read as `scanpick status`
    /// reads them, so the numbers agree.
    func metricsText(sync: SyncService) -> @Sendable () -> [UInt8] {
        let (station, attention, metrics) = (station, attention, metrics)
        return {
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
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Logs a problem and shows it as needing attention.
    func report(_ source: String, _ code: String, _ message: String) {
        log(code, message)
        attention.set(source, Attention(code: code, message: message))
    }

    /// Logs `event` with its `message`, at the level the journal's table gives the event.
    func log(_ event: String, _ message: String) { logger.event(event, ["message": .string(message)]) }
}
