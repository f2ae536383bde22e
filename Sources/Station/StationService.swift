import Capture
import Foundation
import Queue
import Scanning
import Synchronization
import Timestamps
import Wire

/// The running station, the composition root of `scanpick station`: the sync loop (drainer and
/// network monitor), the local page, the scan loop on one frame source, the config watcher and the
/// signals, with their lifetimes. It keeps running whatever the frame source does: a camera missing
/// at start is looked for again with backoff, a keyboard-wedge input that ends is shown, and taps,
/// the page and the drainer carry on. It re-reads its config on SIGHUP or when a config file changes.
///
///     let service = StationService(configPath: path, station: station, output: print, log: log)
///     let summary = try await service.run(source: .wedge, org: nil)  // until SIGINT or SIGTERM
public final class StationService: Sendable {
    public let station: PickStation
    /// What the running station noticed that a person must see (with the queue's pause, in the pill);
    /// kept in the station database too, so `scanpick status` in another process shows it.
    public let attention: AttentionBoard
    private let configPath: String
    private let output: @Sendable (String) -> Void
    private let log: @Sendable (String) -> Void
    private let state = Mutex(RunState())
    private let done = DispatchSemaphore(value: 0)
    private let scanFinished = DispatchSemaphore(value: 0)

    /// Where scans come from.
    public enum Source: Sendable, Equatable {
        /// Recorded images in sorted order, stamped at `fps`; without `loop` the run ends after the last.
        case frames(folder: String, fps: Double, loop: Bool)
        /// A keyboard-wedge scanner on standard input: one code per line.
        case wedge
        /// A V4L2 camera (nil: `camera.device` in the config).
        case camera(device: String?)
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
        var camera: V4L2Camera?
        var sync: SyncService?
        var watcher: ConfigWatcher?
        var page: StationPage?
    }

    /// `output` gets the lines for the person at the terminal; `log` the JSON log lines.
    public init(
        configPath: String, station: PickStation, output: @escaping @Sendable (String) -> Void,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.configPath = configPath
        self.station = station
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
        let configuration = station.configuration
        let open = try station.cache.openBatch()
        // What can refuse the run is checked before anything is printed or started.
        let org =
            requested ?? open?.org
            ?? (configuration.organisations.count == 1 ? configuration.organisations.keys.first : nil)
        guard let org else { throw StationServiceError.whichOrganisation }
        let organisation = try configuration.organisation(org)
        // Frames from a folder that is not there fail now, clearly (when scanning is on: with it
        // off, no frame source is ever opened).
        if organisation.scanningEnabled, case .frames(let folder, let fps, _) = source {
            _ = try RecordedFrames(folder: folder, fps: fps)
        }
        if let task = try station.cache.activeTask() {
            output(
                "active: \(task.location)  \(task.sku)  \(task.barcode)  \(task.qtyPicked)/\(task.qtyRequired)  (task \(task.id))"
            )
        } else {
            output(
                open == nil
                    ? "no batch is open (scanpick batch open ID --org ORG)" : "every task of the open batch is picked")
        }
        if let open, open.org != org, configuration.organisations[open.org]?.scanningEnabled != true {
            output("the open batch belongs to \(open.org), which has scanning off: its scans will be refused")
        }

        // The drainer and the page run whatever the scanning flag says: taps always work.
        clearStoredAttention()
        let sync = station.syncService(attention: attention, log: log)
        sync.start()
        let page: StationPage
        do {
            page = try StationPage(station: station, sync: sync, attention: attention, settings: configuration.page)
        } catch {
            await sync.stop()  // never exit with the drainer mid-request (URLSession would hang the exit)
            throw error
        }
        output("page: http://\(page.address)/")
        if let login = page.newLoginLink() { output("page login link (works once): http://\(page.address)\(login)") }
        let watcher = ConfigWatcher(files: configuration.sourceFiles) { [weak self] in self?.reload() }
        state.withLock {
            $0.sync = sync
            $0.watcher = watcher
            $0.page = page
        }
        let signals = SignalHandlers([
            SIGINT: { [weak self] in self?.stop() }, SIGTERM: { [weak self] in self?.stop() },
            SIGHUP: { [weak self] in self?.reload() },
        ])

        var scanThread: Thread?
        if !organisation.scanningEnabled {
            output(
                "scanning is off for organisation \(org) (organisations.\(org).scanning.enabled is false): no camera or scanner is opened; taps still work"
            )
            page.show(scanner: "scanning off")
            if case .frames = source { stop() }  // a replay has nothing to do
        } else if let source {
            let thread = Thread { [self] in
                self.scan(source, organisation: organisation, page: page)
                self.scanFinished.signal()
            }
            thread.name = "scanpick-scan"
            scanThread = thread
            thread.start()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.done.wait()
                continuation.resume()
            }
        }

        signals.cancel()
        watcher.stop()
        page.stop()
        await sync.stop()
        clearStoredAttention()
        // A camera or replay thread finishes its frame; a wedge read blocked on input is left to the exit.
        if scanThread != nil, source != .wedge {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    self.scanFinished.wait()
                    continuation.resume()
                }
            }
        }
        return state.withLock { $0.summary }
    }

    /// Ends the run after the frame in hand (safe from any thread, more than once).
    public func stop() {
        let (first, camera) = state.withLock { state in
            defer { state.stopped = true }
            return (!state.stopped, state.camera)
        }
        camera?.close()  // wakes a thread waiting for the next frame
        if first { done.signal() }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Re-reads the config file: the server, tokens, worker, scanning settings and the page's access
    /// (a rotated secret) apply at once and a paused queue looks again; keys that need a restart are
    /// shown as needing attention; a config that does not load is shown and the previous one kept.
    public func reload() {
        let (sync, watcher, page) = state.withLock { ($0.sync, $0.watcher, $0.page) }
        var line = JSONObjectWriter()
        line.add("time", string: Timestamp.iso8601())
        do {
            let configuration = try StationConfiguration.load(path: configPath)
            attention.set("config", nil)
            let restart = station.apply(configuration)
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
            do {
                try station.queue.resume()
                attention.set("resume", nil)
            } catch {
                // The new config is in force; only lifting the pause failed (the drainer looks again
                // on its own after the backoff cap).
                report(
                    "resume", "resume_failed",
                    "the corrected config is applied, but the queue's pause could not be lifted (\(error)); it is tried again after the backoff cap, or on the next config change"
                )
            }
            sync?.poke()
            if let page, let login = page.newLoginLink() {
                output("page login link (works once): http://\(page.address)\(login)")
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

    // MARK: The scan thread

    private func scan(_ source: Source, organisation: StationConfiguration.Organisation, page: StationPage) {
        let configuration = station.configuration
        let loop = ScanLoop(
            station: station, reader: ReaderOptions(symbologies: organisation.symbologies),
            debounce: configuration.debounce, log: log, onEnqueue: { [weak self] in self?.poke() })
        switch source {
        case .frames(let folder, let fps, let repeating):
            do {
                let frames = try RecordedFrames(folder: folder, fps: fps, loop: repeating)
                while !isStopped, let frame = try frames.nextFrame() {
                    handle { try loop.process(frame) }
                    state.withLock { $0.summary.frames += 1 }
                }
            } catch {
                report("scanner", "frames_failed", "reading the recorded frames failed: \(error)")
            }
            stop()  // a replay ends with its frames
        case .camera(let requested):
            let device = requested ?? configuration.camera.device
            let camera = V4L2Camera.waitingFor(
                device: device, width: configuration.camera.width, height: configuration.camera.height,
                fps: configuration.camera.fps, report: { [log] in log(Self.line("camera", $0)) },
                onState: { [weak self] state in self?.camera(device, state, page: page) })
            state.withLock { $0.camera = camera }
            if isStopped { camera.close() }
            while !isStopped, let frame = try? camera.nextFrame() {
                handle { try loop.process(frame) }
                state.withLock { $0.summary.frames += 1 }
            }
            state.withLock { $0.summary.dropped = camera.droppedFrames }
        case .wedge:
            page.show(scanner: "scanner: reading")
            while !isStopped, let line = readLine() {
                let code = line.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !code.isEmpty, !isStopped else { continue }
                handle { [try loop.submit(code: code)] }
            }
            if !isStopped {
                page.show(scanner: "scanner: input ended")
                report(
                    "scanner", "scanner_input_ended",
                    "the keyboard-wedge scanner's input ended: no more scans are read until the station restarts; taps still work"
                )
            }
        }
    }

    /// Handles one frame's (or line's) scans; a failure is logged and shown, and the loop goes on.
    private func handle(_ body: () throws -> [ScanLoop.Outcome]) {
        let page = state.withLock { $0.page }
        do {
            for outcome in try body() {
                page?.show(scanAccepted: outcome.verdict.isAccepted, message: outcome.verdict.message)
                state.withLock {
                    if outcome.verdict.isAccepted { $0.summary.accepted += 1 } else { $0.summary.rejected += 1 }
                }
                output(outcome.verdict.message)
            }
            attention.set("scan", nil)
        } catch {
            state.withLock { $0.summary.failed += 1 }
            report("scan", "scan_failed", "a scan could not be recorded: \(error)")
            page?.show(scanAccepted: false, message: "✗ the scan could not be recorded: \(error)")
        }
    }

    private func camera(_ device: String, _ state: V4L2Camera.CameraState, page: StationPage) {
        switch state {
        case .capturing(let format):
            output("camera \(device): \(format)")
            page.show(scanner: "camera: \(format)")
            attention.set("camera", nil)
        case .unavailable(let reason):
            page.show(scanner: "camera: not found")
            attention.set(
                "camera",
                Attention(code: "camera_not_found", message: "camera: \(reason); looking for it again with backoff"))
        }
    }

    private func poke() { state.withLock { $0.sync }?.poke() }

    /// Logs a problem as one JSON line and shows it as needing attention.
    private func report(_ source: String, _ code: String, _ message: String) {
        log(Self.line(code, message))
        attention.set(source, Attention(code: code, message: message))
    }

    private static func line(_ event: String, _ message: String) -> String {
        var line = JSONObjectWriter()
        line.add("time", string: Timestamp.iso8601())
        line.add("event", string: event)
        line.add("message", string: message)
        return line.finished()
    }
}

/// Why the station cannot start.
public enum StationServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    case whichOrganisation

    public var description: String {
        switch self {
        case .whichOrganisation:
            "no organisation to scan for: no batch is open and the config has several organisations; open a batch or name one"
        }
    }
}
