import Capture
import Foundation
import Imaging
import Scanning
import Station
import Synchronization

/// One simulated camera run: a producer thread puts frames in the latest-frame slot at `fps`, the
/// loop (on this thread) takes the newest and processes it as a live source. Reports the frames
/// decoded and dropped, frame-to-enqueue latency of the scans, capture-to-done latency of every
/// frame decoded, and the loop thread's CPU seconds.
struct LiveRun {
    var processed = 0
    var dropped = 0
    var scans: [Double] = []
    var frames: [Double] = []
    var cpu = 0.0
    var wall = 0.0

    init(_ frames: [Frame], fps: Double, loop: ScanLoop) {
        let slot = LatestFrameSlot()
        let producer = Thread {
            let start = Date()
            for (index, frame) in frames.enumerated() {
                let due = start.addingTimeInterval(Double(index) / fps)
                if due > Date() { Thread.sleep(until: due) }
                var stamped = frame
                stamped.capturedAt = Date()
                stamped.time = Double(index) / fps
                slot.put(stamped)
            }
            Thread.sleep(forTimeInterval: 0.2)
            slot.close()
        }
        let cpuStart = threadCPU()
        let wallStart = Date()
        producer.start()
        while let frame = slot.take() {
            processed += 1
            let outcomes = (try? loop.process(frame, live: true)) ?? []
            let done = Date().timeIntervalSince(frame.capturedAt) * 1000
            self.frames.append(done)
            for outcome in outcomes where outcome.actionId != nil { scans.append(done) }
        }
        cpu = threadCPU() - cpuStart
        wall = Date().timeIntervalSince(wallStart)
        dropped = slot.droppedFrames
    }

    func json(period: Double) -> String {
        let scan = LatencyStats(requests: processed, seconds: 1, latencies: scans)
        let frame = LatencyStats(requests: processed, seconds: 1, latencies: frames)
        return
            #"{"processed":\#(processed),"dropped":\#(dropped),"scans":\#(scans.count),"p50ms":\#(scan.percentile(0.5)),"p99ms":\#(scan.percentile(0.99)),"frameP99ms":\#(frame.percentile(0.99)),"frameMaxms":\#(frame.percentile(1)),"cpuSeconds":\#(cpu),"wallSeconds":\#(wall),"periodMs":\#(period)}"#
    }
}

/// Seconds of CPU the calling thread has used.
func threadCPU() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// The camera loop with and without the angled look, as peers in one invocation, alternating
/// (with, without, with, without) so that the machine's load falls on both alike: frames of
/// `sample` upright and turned by `degrees` (3 frames in view, 4 out, each in turn, so that a
/// hold-off of 0.1 s makes each sighting a scan) between frames of the bare bench, at 30 frames/s.
func liveAngledComparison(
    shown: Frame, blank: Frame, sample: GreyImage, degrees: Double, count: Int, station: PickStation
) -> String {
    let width = blank.image.width
    let height = blank.image.height
    var turned = blank
    let code = sample.rotated(byDegrees: degrees)
    for y in 0..<min(code.height, height) {
        for x in 0..<min(code.width, width) {
            turned.image[(width - code.width) / 2 + x, (height - code.height) / 2 + y] = code[x, y]
        }
    }
    let cycle = [shown, shown, shown, blank, blank, blank, blank, turned, turned, turned, blank, blank, blank, blank]
    let frames = (0..<count).map { cycle[$0 % cycle.count] }
    let debounce = Debouncer.Options(holdOff: 0.1)
    var runs: [Bool: [LiveRun]] = [true: [], false: []]
    for angled in [true, false, true, false] {
        var reader = ReaderOptions.camera()
        reader.angledLook = angled
        let loop = ScanLoop(station: station, reader: reader, debounce: debounce)
        runs[angled, default: []].append(LiveRun(frames, fps: 30, loop: loop))
    }
    func merged(_ parts: [LiveRun]) -> LiveRun {
        var all = parts[0]
        for part in parts.dropFirst() {
            all.processed += part.processed
            all.dropped += part.dropped
            all.scans += part.scans
            all.frames += part.frames
            all.cpu += part.cpu
            all.wall += part.wall
        }
        return all
    }
    let period = 1000.0 / 30
    return
        #"{"degrees":\#(degrees),"offered":\#(2 * frames.count),"with":\#(merged(runs[true] ?? []).json(period: period)),"without":\#(merged(runs[false] ?? []).json(period: period))}"#
}
