import Capture
import Foundation
import Lifecycle
import Logging
import Scanning
import ServiceManager

/// The frame and code sources given to ``run(sources:org:signals:)``: each read on a thread of its own, the
/// camera and recorded frames opened and closed as scanning goes on and off.
extension StationRuntime {
    /// Scans one source for as long as its reader `name` runs. The camera and recorded frames are
    /// opened when scanning comes on and closed when it goes off (each open period on a thread of
    /// its own); a source the caller opened is read throughout, its scans dropped while scanning is
    /// off. Recorded frames without `loop` end the run with their last frame, or at once while
    /// scanning is off (a replay has nothing to do).
    func keepScanning(
        _ source: Source, name: String, number: Int, page: StationPage,
        loops: (capture: ServiceManager.Watchdog.Loop, decode: ServiceManager.Watchdog.Loop)?
    ) async {
        if source.endsTheRun, !isScanningOn {
            stop()
            return
        }
        let reopens: Bool = if case .frames = source { true } else if case .camera = source { true } else { false }
        while !Task.isCancelled {
            if reopens { await scanning.wait { $0 } }
            guard !Task.isCancelled, keepsReading(name, closedWhenScanningStops: false) else { return }
            let again = await BlockingExecutor.runOnOwnThread(named: "source-\(number)") {
                self.scan(source, name: name, page: page, loops: loops)
            }
            guard again else { return }
        }
    }

    /// Reads `source` until it ends, the station stops or (for the camera and recorded frames)
    /// scanning goes off; returns whether to open it again when scanning comes back on.
    func scan(
        _ source: Source, name: String, page: StationPage,
        loops: (capture: ServiceManager.Watchdog.Loop, decode: ServiceManager.Watchdog.Loop)?
    ) -> Bool {
        let configuration = station.configuration
        let loop = ScanLoop(
            station: station, settings: scanSettings(),
            live: { [weak self] in self?.scanSettings() ?? .init(reader: .camera(), debounce: .init()) },
            logger: logger, onEnqueue: { [weak self] in self?.poke() }, decodeTimes: metrics.decodeSeconds)
        switch source {
        case .frames(let folder, let fps, let repeating):
            do throws(any Error) {
                let frames = try RecordedFrames(folder: folder, fps: fps, loop: repeating)
                // Nothing to close: the loop looks at the station and at scanning before each frame.
                guard opened(name, closing: {}, closedWhenScanningStops: true) else { return true }
                defer { closed(name) }
                try scanFrames(
                    frames, loop: loop, page: page, reader: name, live: repeating, closedWhenScanningStops: true)
            } catch {
                report("scanner", "frames_failed", "reading the recorded frames failed: \(error)")
            }
            // Closed (scanning off, the reader stopped): opened again when scanning comes back on.
            guard keepsReading(name, closedWhenScanningStops: true) else { return true }
            stop()  // a replay ends with its frames (or with a failure to read them)
            return false
        case .frameSource(let frames):
            // The caller's source stands for a camera: the metrics and heartbeats show it capturing,
            // its dropped frames, and missing once it fails (not in use once it has ended).
            _ = opened(name, closing: frames.close, closedWhenScanningStops: false)
            metrics.readDroppedFrames { frames.droppedFrames }
            metrics.setCamera(.ok)
            do {
                try scanFrames(frames, loop: loop, page: page, reader: name, closedWhenScanningStops: false)
                metrics.setCamera(.off)
            } catch {
                metrics.setCamera(.missing)
                if !isStopped(name) { report(name, "frames_failed", "reading frames failed: \(error)") }
            }
            state.withLock { $0.summary.dropped = frames.droppedFrames }
            return false
        case .camera(let requested):
            let device = requested ?? configuration.camera.device
            let camera = V4L2Camera.waitingFor(
                device: device, width: configuration.camera.width, height: configuration.camera.height,
                fps: configuration.camera.fps, logger: logger,
                onState: { [weak self] state in self?.camera(device, state) }, heartbeat: { loops?.capture.beat($0) },
                open: devices.openCamera)
            defer { state.withLock { $0.summary.dropped += camera.droppedFrames } }
            guard opened(name, closing: camera.close, closedWhenScanningStops: true) else { return true }
            defer { closed(name) }
            metrics.readDroppedFrames { camera.droppedFrames }
            // The camera looks for its device again by itself; its frames end only when it is closed,
            // so an error here is one it could not get past, and the picker must hear of it.
            do {
                try scanFrames(
                    camera, loop: loop, page: page, reader: name, decode: loops?.decode, closedWhenScanningStops: true)
            } catch {
                guard keepsReading(name, closedWhenScanningStops: true) else { return true }
                report(
                    "camera", "frames_failed",
                    "the camera stopped: \(error); no more scans from it until the station restarts; taps still work")
                return false
            }
            return true
        case .wedge:
            show("wedge", "scanner: reading")
            var ending = "the keyboard-wedge scanner's input ended"
            do { try scanCodes(StandardInputCodes(), loop: loop, reader: name, device: "standard input") } catch {
                ending = "reading the keyboard-wedge scanner's input failed: \(error)"
            }
            if !isStopped(name) {
                show("wedge", "scanner: input ended")
                report(
                    "scanner", "scanner_input_ended",
                    "\(ending): no more scans are read until the station restarts; taps still work")
            }
            return false
        case .codeSource(let codes):
            _ = opened(name, closing: codes.close, closedWhenScanningStops: false)
            do { try scanCodes(codes, loop: loop, reader: name, device: name) } catch {
                if !isStopped(name) { report(name, "scanner_lost", "reading codes failed: \(error)") }
            }
            return false
        }
    }

    /// Remembers how to close the source of reader `name`, so that its stop (and, when
    /// `closedWhenScanningStops`, scanning switched off) wakes the thread blocked on it. Returns
    /// false when it was closed at once instead: the reader has stopped, or scanning went off
    /// meanwhile.
    func opened(
        _ name: String, closing close: @escaping @Sendable () -> Void, closedWhenScanningStops: Bool
    ) -> Bool {
        let keep = state.withLock { state in
            guard !state.stoppedSources.contains(name), state.scanningOn || !closedWhenScanningStops else {
                return false
            }
            state.openSources[name] = close
            if closedWhenScanningStops { state.closedWhenScanningStops.insert(name) }
            return true
        }
        if !keep { close() }
        return keep
    }

    /// Forgets a source that was closed (or ended).
    func closed(_ name: String) {
        state.withLock { state in
            state.openSources[name] = nil
            state.closedWhenScanningStops.remove(name)
        }
    }

    /// The frame loop, whatever the frames' source: each frame to the scan loop (and the page's
    /// preview when someone watches) until the source ends or its reader stops. A `live` source
    /// (a camera, a paced replay) keeps the loop to its frame period.
    func scanFrames(
        _ frames: any FrameSource, loop: ScanLoop, page: StationPage, reader: String,
        decode: ServiceManager.Watchdog.Loop? = nil, live: Bool = true, closedWhenScanningStops: Bool
    ) throws {
        defer { decode?.idle() }
        var skipped = SkippedFrames()
        defer { skipped.report(frames.skippedFrames, final: true, logger: logger) }
        while keepsReading(reader, closedWhenScanningStops: closedWhenScanningStops) {
            decode?.idle()  // waiting for a frame is the capture loop's to watch
            guard let frame = try frames.nextFrame() else { return }
            skipped.report(frames.skippedFrames, logger: logger)
            guard isScanningOn else { continue }  // a caller's source, read on while scanning is off
            decode?.alive()
            handle { try loop.process(frame, live: live) }
            metrics.framesCaptured.add()
            page.preview.offer(frame.image) { loop.sightings() }
            state.withLock { $0.summary.frames += 1 }
        }
    }

    /// The code loop, whatever the codes' source: each code is one scan; keys a person typed are
    /// refused and logged without what they typed (it may be anything, a password).
    func scanCodes(
        _ codes: any CodeSource, loop: ScanLoop, reader: String, device: String,
        heartbeat: ServiceManager.Watchdog.Loop? = nil
    ) throws {
        while !isStopped(reader) {
            heartbeat?.idle()  // a scanner may rest for hours
            guard let read = try codes.nextRead(), !isStopped(reader) else { return }
            heartbeat?.alive()
            guard isScanningOn else {
                log("scan_ignored", "\(device): a code read while scanning is off was not counted")
                continue
            }
            switch read {
            case .code(let code):
                handle { [try loop.submit(code: code)] }
            case .refused(let typed, let reason):
                metrics.refused("not_a_scan")
                log("scanner_keys_refused", "\(device): \(typed.count) characters refused: \(reason)")
                state.withLock { $0.parts?.page }?.show(
                    scanAccepted: false, message: "✗ Not a scan (keys typed, or some were lost): scan the item again")
            }
        }
    }

    /// Frames a source could not read (an unreadable recorded file, a corrupt MJPEG frame) are said
    /// in the log, at most once every 10 seconds however fast they come, and once more at the end.
    struct SkippedFrames {
        private var said = 0
        private var saidAt: ContinuousClock.Instant?

        mutating func report(_ total: Int, final: Bool = false, logger: Logger) {
            guard total > said, final || saidAt.map({ ContinuousClock.now - $0 >= .seconds(10) }) ?? true else {
                return
            }
            logger.event(
                "frames_skipped",
                ["message": "\(total - said) frames could not be read and were skipped (\(total) so far)"])
            said = total
            saidAt = .now
        }
    }
}
