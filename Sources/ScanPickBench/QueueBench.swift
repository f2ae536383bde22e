import Foundation
import Queue
import ScanPickClient

/// `scanpick-bench queue`: durable enqueue latency next to bare SQLite commits on the same disk, then
/// the time to drain `count` queued scans into the server at `port`. Prints JSON.
func queueBenchmark(port: UInt16, token: String, disk: String, enqueues: Int, drainCount: Int) async throws -> String {
    // Enqueue latency: the queue's durable insert, then the bare floor, alternating to share noise.
    let queue = try ActionQueue(path: disk + "/bench-queue-\(UUID().uuidString).sqlite")
    var enqueueLatencies: [Double] = []
    let start = ContinuousClock.now
    for index in 0..<enqueues {
        let action = try NewAction.scan(
            org: "bench", pickTaskId: "task-\(index % 50)", location: "A\(index % 50)", barcode: "5901234123457",
            worker: "worker-bench", scannedAt: Date())
        let begin = ContinuousClock.now
        try queue.enqueue(action)
        enqueueLatencies.append(milliseconds(since: begin))
    }
    let enqueue = LatencyStats(
        requests: enqueues, seconds: milliseconds(since: start) / 1000, latencies: enqueueLatencies)
    let bare = try bareCommitLatencies(directory: disk, count: enqueues)

    // Drain: `drainCount` scans of one task into the real server, one at a time, oldest first.
    let task = try seed(port: port, token: token, quantity: drainCount + 10)
    let drainQueue = try ActionQueue(path: disk + "/bench-drain-\(UUID().uuidString).sqlite")
    for _ in 0..<drainCount {
        try drainQueue.enqueue(
            .scan(
                org: "bench", pickTaskId: task, location: "A1", barcode: "5901234123457", worker: "w", scannedAt: Date()
            ))
    }
    let server = URL(string: "http://127.0.0.1:\(port)")!
    let drainer = Drainer(
        queue: drainQueue, transport: ScanPickHTTPClient(server: server, tokens: ["bench": token], timeout: 10),
        backoff: BackoffPolicy(initial: 2, cap: 60))
    let drainStart = ContinuousClock.now
    let pass = try await drainer.drainPass()
    let drainSeconds = milliseconds(since: drainStart) / 1000
    guard pass.sent == drainCount else { throw BenchError("drained \(pass.sent) of \(drainCount): \(pass.stop)") }
    return
        #"{"enqueue":\#(enqueue.json),"bareCommit":\#(bare.json),"drain":{"actions":\#(drainCount),"seconds":\#(drainSeconds),"perSecond":\#(Int(Double(drainCount) / drainSeconds))}}"#
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}
