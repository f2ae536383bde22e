import Capture
import Foundation
import Imaging
import Scanning
import Station
import Synchronization
import Wire

/// `scanpick-bench frames`: width×height frames (a code in view for 10 frames, out for 50) through
/// the station's whole scan loop (decode, debounce, validate, durable enqueue) next to bare ZBar
/// decoding of the same frames, each the best of two passes, CPU time measured on the thread; then
/// a simulated 30 frames/s camera through the latest-frame slot, for frame-to-enqueue latency.
func framesBenchmark(disk: String, count: Int, width: Int, height: Int, sample: String) throws -> String {
    let frames = try makeFrames(count: count, width: width, height: height, sample: sample)
    let station = try benchStation(disk: disk)
    let reader = BarcodeReader()
    var bare = (wall: Double.infinity, cpu: Double.infinity)
    var loopCost = (wall: Double.infinity, cpu: Double.infinity)
    var viewer = (wall: Double.infinity, cpu: Double.infinity)
    let encoded = Array(frames.prefix(60))
    for _ in 0..<2 {
        bare = best(bare, measure { for frame in frames { _ = reader.read(frame.image) } })
        let loop = ScanLoop(station: station, reader: ReaderOptions(), debounce: Debouncer.Options(), log: { _ in })
        loopCost = best(loopCost, measure { for frame in frames { _ = try? loop.process(frame) } })
        // With a viewer the loop also draws and encodes a frame, at most 10 a second.
        viewer = best(
            viewer,
            measure {
                for frame in encoded {
                    _ = try? PreviewFeed.picture(of: frame.image, loop.sightings())
                }
            })
    }

    // A camera at 30 frames/s: a producer thread fills the slot, the loop takes the newest.
    let slot = LatestFrameSlot()
    let latencies = Mutex<[Double]>([])
    let liveFrames = Array(frames.prefix(150))
    let producer = Thread {
        let start = Date()
        for (index, frame) in liveFrames.enumerated() {
            let due = start.addingTimeInterval(Double(index) / 30)
            if due > Date() { Thread.sleep(until: due) }
            var stamped = frame
            stamped.capturedAt = Date()
            stamped.time = Double(index) / 30
            slot.put(stamped)
        }
        Thread.sleep(forTimeInterval: 0.2)
        slot.close()
    }
    let loop = ScanLoop(station: station, reader: ReaderOptions(), debounce: Debouncer.Options(), log: { _ in })
    producer.start()
    var processed = 0
    while let frame = slot.take() {
        processed += 1
        for outcome in (try? loop.process(frame)) ?? [] where outcome.actionId != nil {
            latencies.withLock { $0.append(Date().timeIntervalSince(frame.capturedAt) * 1000) }
        }
    }
    let live = LatencyStats(requests: processed, seconds: 1, latencies: latencies.withLock { $0 })
    let perFrame = { (seconds: Double) in seconds / Double(frames.count) * 1000 }
    let perEncode = viewer.cpu / Double(encoded.count) * 1000
    return
        #"{"frames":\#(frames.count),"width":\#(width),"height":\#(height),"bare":{"framesPerSecond":\#(Int(Double(frames.count) / bare.wall)),"cpuMsPerFrame":\#(perFrame(bare.cpu))},"loop":{"framesPerSecond":\#(Int(Double(frames.count) / loopCost.wall)),"cpuMsPerFrame":\#(perFrame(loopCost.cpu))},"viewer":{"cpuMsPerEncode":\#(perEncode),"encodesPerSecond":10},"live":{"fps":30,"offered":\#(liveFrames.count),"processed":\#(processed),"dropped":\#(slot.droppedFrames),"scans":\#(live.latencies.count),"p50ms":\#(live.percentile(0.5)),"p99ms":\#(live.percentile(0.99))}}"#
}

/// The faster of two measurements (by CPU time).
private func best(_ a: (wall: Double, cpu: Double), _ b: (wall: Double, cpu: Double)) -> (wall: Double, cpu: Double) {
    a.cpu <= b.cpu ? a : b
}

/// Wall and thread-CPU seconds of `body`.
private func measure(_ body: () -> Void) -> (wall: Double, cpu: Double) {
    func cpu() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
    let (wallStart, cpuStart) = (Date(), cpu())
    body()
    return (Date().timeIntervalSince(wallStart), cpu() - cpuStart)
}

/// Frames with the sample image in view for 10 frames, then 50 without, repeated.
private func makeFrames(count: Int, width: Int, height: Int, sample: String) throws -> [Frame] {
    let code = try ImageLoader().load(path: sample)
    var generator = SystemRandomNumberGenerator()
    // A bench under uneven light: a smooth gradient with slight sensor noise (not per-pixel static,
    // which no camera produces and which makes ZBar several times slower).
    var blank = GreyImage(width: width, height: height, filledWith: 200)
    for y in 0..<height {
        for x in 0..<width {
            let light = 170 + 50 * (x + y) / (width + height)
            blank[x, y] = UInt8(light + Int.random(in: -3...3, using: &generator))
        }
    }
    var shown = blank
    for y in 0..<min(code.height, height) {
        for x in 0..<min(code.width, width) {
            shown[(width - code.width) / 2 + x, (height - code.height) / 2 + y] = code[x, y]
        }
    }
    let start = Date()
    return (0..<count).map { index in
        Frame(image: index % 60 < 10 ? shown : blank, time: Double(index) / 30, index: index, capturedAt: start)
    }
}

/// A station with a batch whose one task expects the sample's code (room for every scan).
private func benchStation(disk: String) throws -> PickStation {
    let config = disk + "/station.json"
    let settings =
        #"{"station":"bench","worker":"w","server":"http://127.0.0.1:9","database":"\#(disk)/bench-station.sqlite","organisations":{"bench":{"token":"t","scanning":{"enabled":true}}}}"#
    try Data(settings.utf8).write(to: URL(fileURLWithPath: config))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config)  // it holds a token
    let station = try PickStation(configuration: try StationConfiguration.load(path: config))
    try station.cache.store(
        Batch(
            id: "bench-batch",
            tasks: [
                PickTask(
                    id: "bench-task", batchId: "bench-batch", orderId: "o", lineId: "l", sku: "S", location: "A1",
                    barcode: "5901234123457", qtyRequired: 1_000_000, qtyPicked: 0, qtyLocked: 0)
            ]), org: "bench")
    return station
}
