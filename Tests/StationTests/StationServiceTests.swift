import Capture
import Foundation
import Logging
import Queue
import Synchronization
import TestSupport
import Testing

@testable import Station
@testable import scanpick

/// The station run in-process through its composition root, as `scanpick station` runs it: the
/// scan loop on recorded frames, the sync loop draining to a real server, the page, then a stop.
@Suite struct StationServiceTests {
    /// The run's metrics (as its page's `/metrics` serves them, read by Prometheus's parser) count
    /// what it did: every frame captured and timed, each scan accepted or refused by its reason.
    @Test func recordedFramesAreScannedQueuedAndDrainedInProcess() async throws {
        let fixture = try await StationFixture()
        let code = "clean/upca.png"  // task A1's item (UPC-A 036000291452), three units wanted
        let blank = "none/noise.png"
        let wrong = "clean/code128.png"  // a code no task has (another task's code would select it): a mismatch
        let frames = try fixture.frames("shift", [(code, 10), (blank, 60), (code, 10), (blank, 60), (wrong, 10)])
        // Two frames no loader can read: skipped, and said in the log (not one line a frame).
        for name in ["zz-cut-1.png", "zz-cut-2.png"] {
            try Data("not a png".utf8).write(to: URL(fileURLWithPath: frames).appendingPathComponent(name))
        }
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let printed = Mutex<[String]>([])
        let logged = Mutex<[String]>([])
        let service = StationRuntime(
            configPath: fixture.config, station: station, output: { line in printed.withLock { $0.append(line) } },
            logger: Logger(sink: LogSink(write: { line in logged.withLock { $0.append(line) } })))

        // Recorded frames without --loop end the run by themselves once replayed.
        let summary = try await service.run(source: .frames(folder: frames, fps: 30, loop: false), org: nil)
        #expect(summary.accepted == 2)
        #expect(summary.rejected == 1)
        #expect(summary.frames == 150)
        #expect(printed.withLock { $0 }.contains { $0.hasPrefix("page: http://127.0.0.1:") })
        let skipped = logged.withLock { $0 }.filter { $0.contains(#""event":"frames_skipped""#) }
        #expect(skipped.count == 1 && skipped[0].contains("2 frames could not be read"), "\(skipped)")
        let unsent = try station.queue.counts()
        let scrape = try await PrometheusScrape.parse(
            service.metrics.text(queue: unsent, attention: 0, online: true).string)
        #expect(scrape.value("scanpick_station_frames_captured_total") == 150)
        #expect(scrape.value("scanpick_station_decode_duration_seconds_count") == 150)
        #expect(scrape.value("scanpick_station_decode_duration_seconds_bucket", ["le": "+Inf"]) == 150)
        #expect(scrape.value("scanpick_station_scans_accepted_total") == 2)
        #expect(scrape.value("scanpick_station_scans_refused_total", ["reason": "mismatch"]) == 1)
        #expect(scrape.value("scanpick_station_scans_refused_total", ["reason": "no_open_batch"]) == 0)
        #expect(scrape.value("scanpick_station_queue_actions", ["state": "pending"]) == Double(unsent.pending))
        #expect(scrape.types["scanpick_station_decode_duration_seconds"] == "histogram")
        // Both scans reached the server exactly once (the drainer of the run, or the next pass).
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [2, 0, 0])
        #expect(try station.queue.counts().pending == 0)
    }

    /// Any number of sources in one run, each on a thread of its own: frames from a source the
    /// caller opened and codes from another (a camera and a handheld scanner, as a pick station has
    /// them) are both scanned and counted, and both are closed when the station stops.
    @Test func aFrameSourceAndACodeSourceRunTogetherAndAreClosedOnStop() async throws {
        let fixture = try await StationFixture()
        let folder = try fixture.frames("camera", [("clean/upca.png", 10), ("none/noise.png", 5)])
        let recorded = try RecordedFrames(folder: folder, fps: 30)
        var frames: [Frame] = []
        while let frame = try recorded.nextFrame() { frames.append(frame) }
        let camera = HeldSource(frames)
        // Task B3's code: selects B3 and counts it.
        let scanner = HeldSource<KeyCodeDecoder.Read>([.code("5901234123457")])
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let service = StationRuntime(
            configPath: fixture.config, station: station, output: { _ in }, logger: .discarding)
        let run = Task {
            try await service.run(sources: [.frameSource(camera), .codeSource(scanner)], org: nil)
        }
        // Both sources handed out everything and are blocked, as a camera between frames and an idle
        // scanner are (the frames' thread asks for the next only once it has counted the last). A
        // full parallel suite on two cores can hold the station's tasks up for tens of seconds.
        #expect(
            try await eventually {
                try station.queue.counts().pending + station.queue.counts().sent >= 2 && camera.isWaiting
                    && scanner.isWaiting
            })
        service.stop()
        let summary = try await run.value
        #expect(summary.accepted == 2)
        #expect(summary.frames == 15)
        #expect(camera.isClosed && scanner.isClosed)
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [1, 1, 0])
    }

    /// Handheld scanners that are not there, or are not scanners, are shown and looked for again,
    /// and so is a private CA not yet trusted; the station runs on (its page, its drainer).
    @Test func aMissingOrWrongScannerIsShownAndTheStationRunsOn() async throws {
        let fixture = try await StationFixture()
        let certificates = try await TestCertificates()
        try fixture.rewriteConfig { settings in
            settings["camera"] = ["enabled": false]
            settings["scanners"] = [["device": "/dev/input/scanpick-test-missing"], ["device": "/dev/null"]]
            settings["tls"] = ["caFile": certificates.authority]
        }
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let service = StationRuntime(
            configPath: fixture.config, station: station, output: { _ in }, logger: .discarding)
        let run = Task { try await service.run(source: .camera(device: nil), org: nil) }

        let deadline = ContinuousClock.now + .seconds(120)  // at once when both show; a loaded suite is slow
        var shown: [Attention] = []
        while shown.filter({ $0.code == "scanner_unavailable" }).count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            shown = service.attention.current
        }
        let messages = shown.filter { $0.code == "scanner_unavailable" }.map(\.message).sorted()
        #expect(messages.count == 2, "\(shown)")
        #expect(messages.contains { $0.contains("/dev/input/scanpick-test-missing: no such handheld scanner") })
        #expect(!messages.contains { $0.contains("camera") })
        #expect(messages.contains { $0.contains("/dev/null is not a handheld scanner") })
        // camera.enabled false: no camera is looked for.
        #expect(!shown.contains { $0.code == "camera_not_found" })
        // A private CA the machine does not trust yet is said at start, with the command that fixes it.
        let trust = try #require(shown.first { $0.code == "tls_ca_not_installed" })
        #expect(trust.message.contains("scanpick config trust-ca --config \(fixture.config)"))
        // The metrics say both scanners are down, and no camera is in use.
        let scrape = try await PrometheusScrape.parse(
            service.metrics.text(queue: nil, attention: 3, online: true).string)
        #expect(scrape.value("scanpick_station_scanner_up", ["scanner": "1"]) == 0)
        #expect(scrape.value("scanpick_station_scanner_up", ["scanner": "2"]) == 0)
        #expect(scrape.value("scanpick_station_camera_up") == nil)
        #expect(scrape.value("scanpick_station_queue_actions", ["state": "pending"]) == nil)  // unread: left out

        service.stop()  // the scanner threads, retrying with backoff, end with the run
        let summary = try await run.value
        #expect(summary.accepted == 0)
    }

    /// `scanners[].terminator` of station.json reaches the scanner's key decoder: with `"tab"`, a
    /// code ended by Tab is scanned and counted, and keys ended by Enter are refused, naming Tab.
    @Test func aScannersTerminatorFromTheConfigReachesItsDecoder() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig { settings in
            settings["camera"] = ["enabled": false]
            settings["scanners"] = [["device": "/dev/input/scanpick-test-tab", "terminator": "tab"]]
        }
        // Task B3's code ended by Tab, then task C2's ended by Enter (counted only if Enter ended codes).
        let scanner = TypingScanner([("5901234123457", KeyCode.tab), ("96385074", KeyCode.enter)])
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let logged = Mutex<[String]>([])
        let service = StationRuntime(
            configPath: fixture.config, station: station,
            devices: StationDevices(openCamera: StationDevices.system.openCamera, openScanner: scanner.open),
            output: { _ in }, logger: Logger(sink: LogSink(write: { line in logged.withLock { $0.append(line) } })))
        let run = Task { try await service.run(source: nil, org: nil) }
        let refusals = { logged.withLock { $0 }.filter { $0.contains(#""event":"scanner_keys_refused""#) } }
        #expect(await eventually { !refusals().isEmpty })
        #expect(try await eventually { try await fixture.picked() == [0, 1, 0] })
        service.stop()
        let summary = try await run.value

        #expect(scanner.opened.map(\.device) == ["/dev/input/scanpick-test-tab"])
        #expect(scanner.opened.first?.options.terminator == KeyCode.tab)
        #expect(summary.accepted == 1)
        #expect(refusals().count == 1)
        #expect(refusals().first?.contains("no Tab followed these keys") == true, "\(refusals())")
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [0, 1, 0])
    }
}

/// A source that hands out what it was given, then blocks, as a camera between frames or an idle
/// scanner does, until it is closed.
/// Items handed out one by one, then a wait until closed (as a camera between frames, an idle scanner).
final class HeldSource<Item: Sendable>: @unchecked Sendable {
    private let items: Mutex<[Item]>
    private let closed = DispatchSemaphore(value: 0)
    private let closedFlag = Mutex(false)
    private let waitingFlag = Mutex(false)

    init(_ items: [Item]) { self.items = Mutex(items) }

    var isClosed: Bool { closedFlag.withLock { $0 } }

    /// Everything was handed out and a caller waits for more.
    var isWaiting: Bool { waitingFlag.withLock { $0 } }

    func next() -> Item? {
        if let item = items.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return item }
        waitingFlag.withLock { $0 = true }
        closed.wait()
        closed.signal()
        return nil
    }

    func close() {
        let first = closedFlag.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if first { closed.signal() }
    }
}

extension HeldSource: FrameSource where Item == Frame {
    func nextFrame() -> Frame? { next() }
    var droppedFrames: Int { 0 }
    var skippedFrames: Int { 0 }
}

extension HeldSource: CodeSource where Item == KeyCodeDecoder.Read {
    func nextRead() -> KeyCodeDecoder.Read? { next() }
}

/// A handheld scanner that types `scans` (each a code of digits and the key ending it) once it is
/// opened, its key events decoded as ``HandheldScanner`` decodes a device's: by a ``KeyCodeDecoder``
/// with the options the station opened it with, keys that rest unended refused after its idle
/// limit. Then it waits, as an idle scanner does, until closed.
private final class TypingScanner: Sendable {
    private let scans: [(code: String, terminator: UInt16)]
    private let openings = Mutex<[(device: String, options: KeyCodeDecoder.Options)]>([])

    init(_ scans: [(code: String, terminator: UInt16)]) { self.scans = scans }

    /// What the station opened it as: each device path and the decoder options it gave.
    var opened: [(device: String, options: KeyCodeDecoder.Options)] { openings.withLock { $0 } }

    var open: @Sendable (String, KeyCodeDecoder.Options) throws(CaptureError) -> any CodeSource {
        { [self] device, options throws(CaptureError) in
            openings.withLock { $0.append((device, options)) }
            var decoder = KeyCodeDecoder(options: options)
            var reads: [KeyCodeDecoder.Read] = []
            var time = 100.0
            for scan in scans {
                // US key codes of the digits: 1–9 are keys 2–10, 0 is key 11.
                let keys = scan.code.compactMap(\.wholeNumberValue).map { UInt16($0 == 0 ? 11 : $0 + 1) }
                for key in keys + [scan.terminator] {
                    for value: Int32 in [1, 0] {
                        if let read = decoder.feed(key: key, value: value, at: time) { reads.append(read) }
                    }
                    time += 0.004
                }
                time += decoder.idleLimit + 0.01
                if let read = decoder.idle(at: time) { reads.append(read) }
                time += 5
            }
            return HeldSource(reads)
        }
    }
}
