import Capture
import Foundation
import Imaging
import ScanPickClient
import Scanning
import Station
import Synchronization
import Wire

/// `scanpick-bench frames`: width×height frames (a code in view for 10 frames, out for 50) through
/// the station's whole scan loop (decode, debounce, validate, durable enqueue) next to bare ZBar
/// decoding of the same frames as the camera reads them (every other scan line), and as a still
/// image is read (every line), each the best of two passes, CPU time measured on the thread; then
/// a simulated 30 frames/s camera through the latest-frame slot, for frame-to-enqueue latency. The
/// bare decode is measured a second way too: with Data Matrix, Aztec and PDF417 asked for, which
/// adds a look by zxing-cpp at every frame (`scanning.symbologies` naming them).
func framesBenchmark(disk: String, count: Int, width: Int, height: Int, sample: String) throws -> String {
    let (shown, blank) = try benchPictures(width: width, height: height, sample: sample)
    let start = Date()
    let frames = (0..<count).map { index in
        Frame(image: index % 60 < 10 ? shown : blank, time: Double(index) / 30, index: index, capturedAt: start)
    }
    let station = try benchStation(disk: disk)
    let reader = BarcodeReader(options: .camera())
    let everyLineReader = BarcodeReader()
    var bare = (wall: Double.infinity, cpu: Double.infinity)
    var everyLine = (wall: Double.infinity, cpu: Double.infinity)
    var angled = (wall: Double.infinity, cpu: Double.infinity)
    var loopCost = (wall: Double.infinity, cpu: Double.infinity)
    var viewer = (wall: Double.infinity, cpu: Double.infinity)
    let encoded = Array(frames.prefix(60))
    let matrixReader = BarcodeReader(options: .camera(symbologies: Symbology.defaults.union(Symbology.zbarLacks)))
    // The frames with the code in view that each reader reads it in (the same in both, or the
    // camera's spacing loses codes).
    let codeFrames = frames.filter { $0.index % 60 < 10 }.prefix(10)
    let readBy = { (reader: BarcodeReader) in codeFrames.filter { !reader.read($0.image).isEmpty }.count }
    var matrix = (wall: Double.infinity, cpu: Double.infinity)
    for _ in 0..<2 {
        bare = best(bare, measure { for frame in frames { _ = reader.read(frame.image) } })
        everyLine = best(everyLine, measure { for frame in frames { _ = everyLineReader.read(frame.image) } })
        angled = best(angled, measure { for frame in frames { _ = reader.readFrame(frame.image) } })
        matrix = best(matrix, measure { for frame in frames { _ = matrixReader.read(frame.image) } })
        let loop = ScanLoop(station: station, reader: .camera(), debounce: Debouncer.Options())
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
    let loop = ScanLoop(station: station, reader: .camera(), debounce: Debouncer.Options())
    producer.start()
    var processed = 0
    while let frame = slot.take() {
        processed += 1
        for outcome in (try? loop.process(frame, live: true)) ?? [] where outcome.actionId != nil {
            latencies.withLock { $0.append(Date().timeIntervalSince(frame.capturedAt) * 1000) }
        }
    }
    let live = LatencyStats(requests: processed, seconds: 1, latencies: latencies.withLock { $0 })
    let perFrame = { (seconds: Double) in seconds / Double(frames.count) * 1000 }
    let perEncode = viewer.cpu / Double(encoded.count) * 1000
    let code = try ImageLoader().load(path: sample)
    let blankFrame = Frame(image: blank, time: 0, index: 0, capturedAt: start)
    let shownFrame = Frame(image: shown, time: 0, index: 0, capturedAt: start)
    let peers = liveAngledComparison(
        shown: shownFrame, blank: blankFrame, sample: code, degrees: 40, count: 450, station: station)
    return
        #"{"frames":\#(frames.count),"width":\#(width),"height":\#(height),"bare":{"framesPerSecond":\#(Int(Double(frames.count) / bare.wall)),"cpuMsPerFrame":\#(perFrame(bare.cpu)),"codeFramesRead":\#(readBy(reader))},"everyLine":{"framesPerSecond":\#(Int(Double(frames.count) / everyLine.wall)),"cpuMsPerFrame":\#(perFrame(everyLine.cpu)),"codeFramesRead":\#(readBy(everyLineReader))},"codeFrames":\#(codeFrames.count),"angled":{"framesPerSecond":\#(Int(Double(frames.count) / angled.wall)),"cpuMsPerFrame":\#(perFrame(angled.cpu))},"matrix":{"framesPerSecond":\#(Int(Double(frames.count) / matrix.wall)),"cpuMsPerFrame":\#(perFrame(matrix.cpu))},"loop":{"framesPerSecond":\#(Int(Double(frames.count) / loopCost.wall)),"cpuMsPerFrame":\#(perFrame(loopCost.cpu))},"viewer":{"cpuMsPerEncode":\#(perEncode),"encodesPerSecond":10},"live":{"fps":30,"offered":\#(liveFrames.count),"processed":\#(processed),"dropped":\#(slot.droppedFrames),"scans":\#(live.latencies.count),"p50ms":\#(live.percentile(0.5)),"p99ms":\#(live.percentile(0.99))},"peers":\#(peers)}"#
}

/// The faster of two measurements (by CPU time).
private func best(_ a: (wall: Double, cpu: Double), _ b: (wall: Double, cpu: Double)) -> (wall: Double, cpu: Double) {
    a.cpu <= b.cpu ? a : b
}

/// Wall and thread-CPU seconds of `body`.
private func measure(_ body: () -> Void) -> (wall: Double, cpu: Double) {
    let (wallStart, cpuStart) = (Date(), threadCPU())
    body()
    return (Date().timeIntervalSince(wallStart), threadCPU() - cpuStart)
}

/// The bench without a code, and with the sample image in its middle.
private func benchPictures(width: Int, height: Int, sample: String) throws -> (shown: GreyImage, blank: GreyImage) {
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
    return (shown, blank)
}

/// A station with a batch whose one task expects the sample's code (room for every scan).
private func benchStation(disk: String) throws -> PickStation {
    let config = disk + "/station.json"
    let settings =
        #"{"station":"bench","worker":"w","server":"http://127.0.0.1:9","database":"\#(disk)/bench-station.sqlite","organisations":{"bench":{"token":"t","scanning":{"enabled":true}}}}"#
    try Data(settings.utf8).write(to: URL(fileURLWithPath: config))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config)  // it holds a token
    let configuration = try StationConfiguration.load(path: config)
    let client = ScanPickHTTPClient(server: configuration.server, tokens: configuration.tokens, timeout: 2)
    let station = try PickStation(configuration: configuration, client: client)
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
