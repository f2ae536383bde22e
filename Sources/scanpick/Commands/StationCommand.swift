import ArgumentParsing
import Capture
import Foundation
import Queue
import Scanning
import Station
import Synchronization

/// `scanpick station`: scanning, validation, the queue's drainer and the network monitor together.
enum StationCommand: Command {
    static let spec = CommandSpec(
        name: "station",
        abstract: "Run the station: frames or a hardware scanner → validate → queue → drain, until SIGINT.",
        discussion: """
            Prints the active task, then runs the scan loop on one frame source and keeps the queue
            draining (network monitor, timer, each new scan) until SIGINT or SIGTERM; then it finishes the
            current frame, stops the drainer and closes the database.

            Frame sources:
              --frames PATH [--fps N] [--loop]  recorded images in sorted order, stamped at N frames/s
                                               (default 30); without --loop it exits 0 after the last frame,
                                               leaving unsent actions in the queue
              --wedge                          a hardware scanner in keyboard-wedge mode: one code per line
                                               on standard input
              --device DEV                     a V4L2 camera (default: camera.device in the config); the
                                               decoder always takes the newest frame

            Scanning is off unless organisations.ORG.scanning.enabled is true for the station's
            organisation (the open batch's, or --org); when off, no frame source is opened. A scan is
            only ever queued for an organisation whose scanning is on: while the open batch belongs to
            one with scanning off, every scan is refused, whatever --org says.
            """,
        options: [
            StationOptions.config,
            .value("frames", valueName: "PATH", help: "Replay the images in this folder as camera frames."),
            .value("fps", valueName: "N", help: "Frame rate the recorded frames are stamped at (default 30)."),
            .flag("loop", help: "Repeat the recorded frames until stopped."),
            .flag("wedge", help: "Read codes from a keyboard-wedge scanner on standard input."),
            .value("device", valueName: "DEV", help: "The V4L2 camera (default: camera.device in the config)."),
            .value("org", valueName: "ORG", help: "The organisation scanned for (default: the open batch's)."),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let station = try StationOptions.load(arguments)
        let configuration = station.configuration
        let open = try station.cache.openBatch()
        if let task = try station.cache.activeTask() {
            StandardStream.output.write(BatchCommand.describe(active: task) + "\n")
        } else {
            StandardStream.output.write(
                open == nil
                    ? "no batch is open (scanpick batch open ID --org ORG)\n"
                    : "every task of the open batch is picked\n")
        }
        let org =
            arguments.value("org") ?? open?.org
            ?? (configuration.organisations.count == 1 ? configuration.organisations.keys.first : nil)
        guard let org else { throw UsageError("which organisation? open a batch or pass --org ORG") }
        let organisation = try configuration.organisation(org)
        if let open, open.org != org, configuration.organisations[open.org]?.scanningEnabled != true {
            StandardStream.output.write(
                "the open batch belongs to \(open.org), which has scanning off: its scans will be refused\n")
        }

        // The drainer and the page run whatever the scanning flag says: taps always work.
        let sync = station.syncService()
        sync.start()
        let page = try StationPage(station: station, sync: sync, listen: configuration.pageListen)
        StandardStream.output.write("page: http://\(page.address)/\n")
        StandardStream.output.flush()  // a long-running command: every line is seen when it happens

        guard organisation.scanningEnabled else {
            StandardStream.output.write(
                "scanning is off for organisation \(org) (organisations.\(org).scanning.enabled is false): no camera or scanner is opened; taps still work\n"
            )
            StandardStream.output.flush()
            if !(arguments.has("frames") || arguments.has("wedge")) {
                _ = await SignalWaiter.wait(for: [SIGINT, SIGTERM])
            }
            page.stop()
            await sync.stop()
            return 0
        }

        let source: ScanSource
        do {
            source = try chooseSource(arguments, camera: configuration.camera)
        } catch {
            page.stop()
            await sync.stop()  // never exit with the drainer mid-request (URLSession would hang the exit)
            throw error
        }

        let finished = DispatchSemaphore(value: 0)
        let run = StationRun(page: page)
        let loopThread = Thread {
            defer { finished.signal() }
            let loop = ScanLoop(
                station: station, reader: ReaderOptions(symbologies: organisation.symbologies),
                debounce: configuration.debounce, log: { StandardStream.error.write($0 + "\n") },
                onEnqueue: { sync.poke() })
            do {
                switch source {
                case .frames(let folder, let fps, let repeating):
                    let frames = try RecordedFrames(folder: folder, fps: fps, loop: repeating)
                    while !run.stopped.load(ordering: .relaxed), let frame = try frames.nextFrame() {
                        let outcomes = try loop.process(frame)
                        run.counts.withLock { $0.frames += 1 }
                        report(outcomes, run)
                    }
                case .camera(let device, let width, let height, let fps):
                    let camera = try V4L2Camera(
                        device: device, width: width, height: height, fps: fps,
                        report: { StandardStream.error.write("scanpick station: \($0)\n") })
                    run.source.withLock { $0 = camera }
                    let negotiated = camera.negotiated
                    StandardStream.output.write(
                        "camera \(device): \(negotiated.format) \(negotiated.width)x\(negotiated.height)\n")
                    while !run.stopped.load(ordering: .relaxed), let frame = try camera.nextFrame() {
                        let outcomes = try loop.process(frame)
                        run.counts.withLock { $0.frames += 1 }
                        report(outcomes, run)
                    }
                    run.counts.withLock { $0.dropped = camera.droppedFrames }
                case .wedge:
                    while !run.stopped.load(ordering: .relaxed), let line = readLine() {
                        let code = line.trimmingCharacters(in: .whitespacesAndNewlines)
                        guard !code.isEmpty else { continue }
                        report([try loop.submit(code: code)], run)
                    }
                }
            } catch {
                run.failure.withLock { $0 = String(describing: error) }
            }
        }
        loopThread.start()
        let waiter = Task.detached { await SignalWaiter.wait(for: [SIGINT, SIGTERM]) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                finished.wait()
                continuation.resume()
            }
            Task {
                _ = await waiter.value
                run.stopped.store(true, ordering: .relaxed)
                run.source.withLock { $0?.close() }  // wakes a thread waiting for the next frame
            }
        }
        waiter.cancel()
        page.stop()
        await sync.stop()
        if let failure = run.failure.withLock({ $0 }) { throw StationCommandError(failure) }
        let counts = run.counts.withLock { $0 }
        let pending = try station.queue.counts().pending
        StandardStream.output.write(
            "stopped: \(counts.accepted) scans accepted, \(counts.rejected) rejected"
                + (counts.frames > 0 ? " in \(counts.frames) frames" : "")
                + (counts.dropped > 0 ? " (\(counts.dropped) dropped while decoding)" : "")
                + "; \(pending) actions pending in the queue\n")
        return 0
    }

    private static func chooseSource(_ arguments: ParsedArguments, camera: StationConfiguration.CameraSettings) throws
        -> ScanSource
    {
        if let folder = arguments.value("frames") {
            let fps = Double(try arguments.integer("fps", in: 1...1000) ?? 30)
            _ = try RecordedFrames(folder: folder, fps: fps)  // fail now, clearly, if the folder is wrong
            return .frames(folder: folder, fps: fps, loop: arguments.has("loop"))
        }
        if arguments.has("wedge") { return .wedge }
        let device = arguments.value("device") ?? camera.device
        return .camera(device: device, width: camera.width, height: camera.height, fps: camera.fps)
    }

    /// Which source the scan thread opens (it owns the source and the reader).
    private enum ScanSource: Sendable {
        case frames(folder: String, fps: Double, loop: Bool)
        case camera(device: String, width: Int, height: Int, fps: Int)
        case wedge
    }

    private static func report(_ outcomes: [ScanLoop.Outcome], _ run: StationRun) {
        for outcome in outcomes {
            run.page.show(scanAccepted: outcome.verdict.isAccepted, message: outcome.verdict.message)
            run.counts.withLock {
                if outcome.verdict.isAccepted { $0.accepted += 1 } else { $0.rejected += 1 }
            }
            StandardStream.output.write(outcome.verdict.message + "\n")
            StandardStream.output.flush()
        }
    }
}

/// What the scan thread and the command share during a run: its counts, and the stop request.
private final class StationRun: Sendable {
    let page: StationPage
    init(page: StationPage) { self.page = page }
    let counts = Mutex((accepted: 0, rejected: 0, frames: 0, dropped: 0))
    let stopped = Atomic(false)
    /// Why the scan thread stopped early, if it did.
    let failure = Mutex<String?>(nil)
    /// The camera, once open, so a stop request can wake the thread waiting on it.
    let source = Mutex<V4L2Camera?>(nil)
}
