import Dispatch
import Foundation
import Synchronization
import Timestamps
import Wire

/// `scanpick-bench`: load generators for the scripts/bench-* benchmarks. Not part of the product.
///
///     scanpick-bench load-stations --servers URL[,URL…] --token T --disk DIR [--stations 50]
///         [--actions 100] [--outage SECONDS] [--wrong-every 50 (0: never)] [--pause-ms 0]
///         (scripts/load-stations, scripts/test-scale-out; see LoadStations.swift)
///
///     scanpick-bench http --port P --token T [--requests N] [--connections C] [--disk DIR] [--random-keys]
///
/// Loads one order line with room for every scan, opens a batch, then runs GET /health (the HTTP
/// floor) and POST /api/picking/submit-scan (each with a fresh idempotency key), first on one
/// connection, then on C connections at once, and prints JSON. With --disk, it also times bare
/// one-row durable SQLite commits in DIR (the storage floor), in turns with the sequential runs.
///
///     scanpick-bench virtual-scanner [--name NAME] [--usb-id VENDOR:PRODUCT]   a uinput keyboard
///         typing stdin's lines as scans
///     scanpick-bench key-events --device PATH --seconds N   key events a non-grabbing reader sees
///         (both for scripts/test-service-vm; see VirtualKeyboard.swift)
///
///     scanpick-bench zxing-each IMAGE...   every image through zxing-cpp's two calls (scripts/check-zxing)
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: String? = nil) -> String {
    if let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count { return arguments[index + 1] }
    if let fallback { return fallback }
    FileHandle.standardError.write(Data("scanpick-bench: --\(name) is required\n".utf8))
    exit(2)
}
if arguments.first == "grey-frame" {
    // grey-frame IMAGE WIDTH HEIGHT OUT: the image centred on white in a raw 8-bit grey frame
    // (what scripts/test-v4l2-vm writes to vivid's output node).
    do {
        try writeGreyFrame(
            image: arguments[1], width: Int(arguments[2]) ?? 640, height: Int(arguments[3]) ?? 480, to: arguments[4])
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("scanpick-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.first == "virtual-scanner" {
    let usbID = arguments.firstIndex(of: "--usb-id").map { _ in option("usb-id") }
    exit(runVirtualScanner(name: option("name", "scanpick virtual scanner"), usbID: usbID))
}
if arguments.first == "zxing-each" {
    exit(zxingEach(Array(arguments.dropFirst())))
}
if arguments.first == "key-events" {
    exit(countKeyEvents(device: option("device"), seconds: Double(option("seconds")) ?? 0))
}
if arguments.first == "frames" {
    do {
        print(
            try framesBenchmark(
                disk: option("disk"), count: Int(option("frames", "600")) ?? 600,
                width: Int(option("width", "1280")) ?? 1280, height: Int(option("height", "720")) ?? 720,
                sample: option("sample", "SampleImages/clean/ean13.png")))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("scanpick-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.first == "load-stations" {
    do {
        let servers = option("servers").split(separator: ",").compactMap { URL(string: String($0)) }
        print(
            try await loadStations(
                LoadStationsOptions(
                    servers: servers, token: option("token"), stations: Int(option("stations", "50")) ?? 50,
                    actions: Int(option("actions", "100")) ?? 100, outage: Double(option("outage", "1")) ?? 1,
                    disk: option("disk"), wrongEvery: Int(option("wrong-every", "50")) ?? 50,
                    pause: .milliseconds(Int(option("pause-ms", "0")) ?? 0))))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("scanpick-bench: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.first == "queue" {
    do {
        print(
            try await queueBenchmark(
                port: UInt16(option("port")) ?? 0, token: option("token"), disk: option("disk"),
                enqueues: Int(option("enqueues", "2000")) ?? 2000, drainCount: Int(option("drain", "10000")) ?? 10000))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("scanpick-bench: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.first == "http" else {
    FileHandle.standardError.write(
        Data("usage: scanpick-bench http --port P --token T [--requests N] [--connections C]\n".utf8))
    exit(2)
}
let port = UInt16(option("port")) ?? 0
let token = option("token")
let barcode = "5901234123457"
let requests = Int(option("requests", "2000")) ?? 2000
let connections = Int(option("connections", "8")) ?? 8

/// Makes the order and batch the scans go to; returns the pick task's id.
func seed(port: UInt16, token: String, quantity: Int = 100_000) throws -> String {
    let client = try KeepAliveClient(host: "127.0.0.1", port: port)
    let auth = ["Authorization": "Bearer \(token)"]
    let run = UUID().uuidString.prefix(8)  // each run its own order and batch, on the same server
    let order =
        #"{"orders":[{"id":"bench-\#(run)","carrier":"BENCH-\#(run)","zone":"Z","shipBy":"2099-01-01","lines":[{"id":"l1","sku":"S","location":"A1","barcode":"5901234123457","qty":\#(quantity)}]}]}"#
    _ = try client.send(method: "POST", path: "/api/orders", headers: auth, body: Array(order.utf8))
    let batch = try client.send(
        method: "POST", path: "/api/batches", headers: auth,
        body: Array(#"{"filters":{"carrier":"BENCH-\#(run)"}}"#.utf8))
    guard batch.status == 201,
        let object = try JSONSerialization.jsonObject(with: Data(batch.body)) as? [String: Any],
        let tasks = object["tasks"] as? [[String: Any]], let id = tasks.first?["id"] as? String
    else { throw BenchError("could not open a batch: \(String(decoding: batch.body, as: UTF8.self))") }
    return id
}
let task: String
do {
    task = try seed(port: port, token: token)
} catch {
    FileHandle.standardError.write(Data("scanpick-bench: \(error)\n".utf8))
    exit(1)
}

/// The largest requests the contract allows, one at a time: an order feed of 1,000 orders with
/// 5,000 lines, and a batch of 1,000 lines chosen by 1,000 order ids. Each one's whole time bounds
/// how long it held the writer.
func bulkLatencies(port: UInt16, token: String, rounds: Int = 5) throws -> String {
    let client = try KeepAliveClient(host: "127.0.0.1", port: port)
    let auth = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
    var feeds: [Double] = []
    var batches: [Double] = []
    for round in 0..<rounds {
        let orders = (0..<1000).map { number in
            let lines = (0..<5).map { line in
                #"{"id":"l\#(line)","sku":"S\#(line)","location":"R\#(number)-\#(line)","barcode":"4006381333931","qty":2}"#
            }
            return
                #"{"id":"bulk\#(round)-\#(number)","carrier":"BULK\#(round)","zone":"Z","shipBy":"2099-01-01","lines":[\#(lines.joined(separator: ","))]}"#
        }
        let feed = Array(#"{"orders":[\#(orders.joined(separator: ","))]}"#.utf8)
        var start = ContinuousClock.now
        let fed = try client.send(method: "POST", path: "/api/orders", headers: auth, body: feed)
        feeds.append(milliseconds(ContinuousClock.now - start))
        guard fed.status == 200 else { throw BenchError("order feed answered \(fed.status)") }
        let ids = (0..<1000).map { #""bulk\#(round)-\#($0)""# }.joined(separator: ",")
        start = ContinuousClock.now
        let batch = try client.send(
            method: "POST", path: "/api/batches", headers: auth,
            body: Array(#"{"filters":{"orderIds":[\#(ids)]}}"#.utf8))
        batches.append(milliseconds(ContinuousClock.now - start))
        guard batch.status == 201 else { throw BenchError("batch answered \(batch.status)") }
    }
    func stats(_ values: [Double]) -> String {
        LatencyStats(requests: values.count, seconds: values.reduce(0, +) / 1000, latencies: values).json
    }
    return #"{"orderFeed":\#(stats(feeds)),"batch":\#(stats(batches))}"#
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// One request of a kind, built fresh each time (a scan needs a new key).
typealias RequestMaker = @Sendable () -> (method: String, path: String, headers: [String: String], body: [UInt8])

let health: RequestMaker = { ("GET", "/health", [:], []) }
/// Each scan's idempotency key, as a station makes it (``ActionKey``: ordered by time), or with
/// `--random-keys` as other clients may (they cost the server a page of its key index per write
/// under load, where ordered keys share one).
let randomKeys = arguments.contains("--random-keys")
@Sendable func newKey() -> String {
    guard randomKeys else { return ActionKey.make() }
    return String(UInt64.random(in: 0...UInt64.max), radix: 16) + "-"
        + String(UInt64.random(in: 0...UInt64.max), radix: 16)
}
/// The scans' time: now, so the server's idempotency horizon never refuses them as too old.
let scannedAt = Timestamp.iso8601()
let scan: RequestMaker = {
    let body =
        #"{"pickTaskId":"\#(task)","barcode":"\#(barcode)","scannedAt":"\#(scannedAt)","idempotencyKey":"\#(newKey())","workerId":"bench"}"#
    return (
        "POST", "/api/picking/submit-scan", ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
        Array(body.utf8)
    )
}

/// Sends `count` requests on each of `connectionCount` connections at once.
func run(_ make: @escaping RequestMaker, count: Int, connectionCount: Int) throws -> LatencyStats {
    let latencies = Mutex<[Double]>([])
    let failures = Mutex<[String]>([])
    let start = ContinuousClock.now
    // One real thread per connection: concurrentPerform would run only one per core.
    let finished = DispatchGroup()
    let threads = (0..<connectionCount).map { _ in
        finished.enter()
        return Thread {
            defer { finished.leave() }
            do {
                let client = try KeepAliveClient(host: "127.0.0.1", port: port)
                var mine: [Double] = []
                mine.reserveCapacity(count)
                for _ in 0..<count {
                    let request = make()
                    let begin = ContinuousClock.now
                    let status = try client.send(
                        method: request.method, path: request.path, headers: request.headers, body: request.body
                    ).status
                    let elapsed = ContinuousClock.now - begin
                    guard (200..<300).contains(status) else { throw BenchError("\(request.path) answered \(status)") }
                    mine.append(
                        Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
                }
                latencies.withLock { $0 += mine }
            } catch {
                failures.withLock { $0.append(String(describing: error)) }
            }
        }
    }
    threads.forEach { $0.start() }
    finished.wait()
    let elapsed = ContinuousClock.now - start
    if let failure = failures.withLock({ $0.first }) { throw BenchError(failure) }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return LatencyStats(requests: count * connectionCount, seconds: seconds, latencies: latencies.withLock { $0 })
}

// `--only health|scan`: one kind over `connections` connections, for profiling (perf, CPU per request).
if let only = arguments.firstIndex(of: "--only").map({ arguments[$0 + 1] }) {
    do {
        let stats = try run(
            only == "health" ? health : scan, count: max(1, requests / connections), connectionCount: connections)
        print(stats.json)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("scanpick-bench: \(error)\n".utf8))
        exit(1)
    }
}

do {
    _ = try run(health, count: 200, connectionCount: 1)  // warm up
    _ = try run(scan, count: 100, connectionCount: 1)
    // Every measurement takes turns with the others in five blocks: the disk's fsync time and the
    // machine's wake-up latencies drift within minutes here (and depend on what ran just before),
    // so ratios of figures taken minutes apart, in a fixed order, would measure the drift.
    let disk = arguments.firstIndex(of: "--disk").map { arguments[$0 + 1] }
    let blocks = 5
    let block = max(1, requests / blocks)
    let perConnection = max(1, requests / connections / blocks)
    let none = LatencyStats(requests: 0, seconds: 0, latencies: [])
    var (healthSequential, scanSequential, healthConcurrent, scanConcurrent) = (none, none, none, none)
    let bareDatabase = try disk.map { try BareCommits(directory: $0) }
    _ = try bareDatabase?.run(requests)  // as warm as the server's database, whose WAL has wrapped
    var bareCommits = none
    // Each block's own two ratios, so that a run shows how far they moved within it.
    var blockRatios: [String] = []
    for _ in 0..<blocks {
        let healthOne = try run(health, count: block, connectionCount: 1)
        let scanOne = try run(scan, count: block, connectionCount: 1)
        let bareOne = try bareDatabase?.run(block)
        let healthMany = try run(health, count: perConnection, connectionCount: connections)
        let scanMany = try run(scan, count: perConnection, connectionCount: connections)
        healthSequential = healthSequential + healthOne
        scanSequential = scanSequential + scanOne
        if let bareOne { bareCommits = bareCommits + bareOne }
        healthConcurrent = healthConcurrent + healthMany
        scanConcurrent = scanConcurrent + scanMany
        let floor = healthOne.percentile(0.5) + (bareOne?.percentile(0.5) ?? 0)
        blockRatios.append(
            #"{"sequentialRatio":\#(LatencyStats.rounded(scanOne.percentile(0.5) / floor)),"#
                + #""concurrentShare":\#(LatencyStats.rounded(scanMany.perSecond / healthMany.perSecond))}"#)
    }
    let bulk = try bulkLatencies(port: port, token: token)
    let bare = bareDatabase == nil ? "null" : bareCommits.json
    print(
        #"{"bareCommit":\#(bare),"health":{"sequential":\#(healthSequential.json),"concurrent":\#(healthConcurrent.json)},"submitScan":{"sequential":\#(scanSequential.json),"concurrent":\#(scanConcurrent.json)},"bulk":\#(bulk),"blocks":[\#(blockRatios.joined(separator: ","))],"connections":\#(connections)}"#
    )
} catch {
    FileHandle.standardError.write(Data("scanpick-bench: \(error)\n".utf8))
    exit(1)
}
