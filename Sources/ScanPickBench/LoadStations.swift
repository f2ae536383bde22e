import Dispatch
import Foundation
import Queue
import ScanPickClient
import Synchronization
import Timestamps
import Wire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `scanpick-bench load-stations`: many simulated stations, each with its own queue database and
/// drainer, picking concurrently through one or more `scanpick serve` processes.
///
/// Each station gets an order of its own (three lines with room for every unit) and a batch, then
/// does `actions` actions: scans (60%), pick taps (30%), qty taps (on its last task only: an absolute
/// count would hide a double count on the others), and on purpose every 50th a scan
/// of a wrong barcode (a refusal that must end as a dead letter). After each action it runs a drain
/// pass, as a station's enqueue poke does. Stations with `index % 3 == 0` have no server for the
/// first `outage` seconds of the run (their requests go to a closed port: connection refused) and
/// replay their backlog afterwards. Every 10th action is also sent at the same moment to another
/// server (a duplicate on purpose). At the end the server's picked counts are compared with what
/// the stations did.
///
/// With `https://` servers (a load balancer ending TLS, as in scripts/test-scale-out) each station
/// sends through the product's own client (``ScanPickHTTPClient``, URLSession), which trusts the
/// system's CA bundle only; the duplicate then goes on a second client at the same moment.
struct LoadStationsOptions {
    var servers: [URL]
    var token: String
    var org = "bench"
    var stations = 50
    var actions = 100
    var outage: TimeInterval = 1
    var disk: String
    /// Every how many actions one scans a wrong barcode (a dead letter on purpose); 0: never.
    var wrongEvery = 50
    /// A pause between a station's actions (a picker's pace), so a run lasts at least this × actions.
    var pause: Duration = .zero
}

func loadStations(_ options: LoadStationsOptions) async throws -> String {
    let setup = ScanPickHTTPClient(server: options.servers[0], tokens: [options.org: options.token], timeout: 30)
    let runTag = String(UUID().uuidString.prefix(8)).lowercased()
    let barcodes = ["4006381333931", "5901234123457", "036000291452"]
    let orders = (0..<options.stations).map { station in
        Order(
            id: "load-\(runTag)-\(station)", carrier: "DHL", zone: "L", shipBy: "2026-12-31",
            lines: barcodes.enumerated().map { line, barcode in
                OrderLine(
                    id: "l\(line)", sku: "SKU-\(line)", location: "S\(station)-\(line)", barcode: barcode,
                    qty: options.actions * 3)
            })
    }
    try await post(
        UpsertOrdersRequest(orders: orders), to: options.servers[0].appendingPathComponent("/api/orders"),
        token: options.token)
    var batches: [Batch] = []
    for order in orders {
        batches.append(try await setup.createBatch(BatchFilters(orderIds: [order.id]), org: options.org))
    }

    let latencies = LatencyLog()
    let start = ContinuousClock.now
    let outcomes = try await withThrowingTaskGroup(of: StationOutcome.self) { group in
        for (index, batch) in batches.enumerated() {
            // Each station on a thread of its own, as a real one has its own machine: its durable
            // commits block that thread, not the two threads of Swift's shared cooperative pool.
            group.addTask(executorPreference: StationExecutor(label: "station-\(index)")) {
                try await runStation(index, batch: batch, options: options, start: start, latencies: latencies)
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

    // The server's view, station by station.
    var mismatches: [String] = []
    for outcome in outcomes {
        let batch = try await setup.fetchBatch(outcome.batchId, org: options.org)
        for task in batch.tasks where task.qtyPicked != outcome.expected[task.id, default: 0] {
            mismatches.append(
                "\(task.location): server \(task.qtyPicked), station \(outcome.expected[task.id, default: 0])")
        }
    }
    let sent = outcomes.reduce(0) { $0 + $1.sent }
    let dead = outcomes.reduce(0) { $0 + $1.dead }
    let provoked = outcomes.reduce(0) { $0 + $1.provoked }
    let stats = LatencyStats(requests: sent + dead, seconds: seconds, latencies: latencies.values.withLock { $0 })
    let units = outcomes.reduce(0) { $0 + $1.expected.values.reduce(0, +) }
    return """
        {"stations":\(options.stations),"actions":\(outcomes.reduce(0) { $0 + $1.enqueued }),\
        "sent":\(sent),"dead":\(dead),"provokedDead":\(provoked),\
        "duplicatesSent":\(outcomes.reduce(0) { $0 + $1.duplicates }),\
        "offlineFailures":\(outcomes.reduce(0) { $0 + $1.offlineFailures }),\
        "unitsExpected":\(units),"mismatches":\(mismatches.count),"firstMismatches":\(jsonStrings(mismatches.prefix(5))),\
        "seconds":\(LatencyStats.rounded(seconds)),"actionsPerSecond":\(Int(stats.perSecond)),\
        "p50ms":\(LatencyStats.rounded(stats.percentile(0.5))),"p99ms":\(LatencyStats.rounded(stats.percentile(0.99)))}
        """
}

/// Runs a station's task on a serial dispatch queue of its own (dispatch adds threads when one blocks).
private final class StationExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Request latencies (ms) from every station of a run.
private final class LatencyLog: Sendable {
    let values = Mutex<[Double]>([])
}

/// What one station did, to compare with the server.
private struct StationOutcome: Sendable {
    var batchId: String
    var expected: [String: Int] = [:]
    var enqueued = 0
    var sent = 0
    var dead = 0
    var provoked = 0
    var duplicates = 0
    var offlineFailures = 0
}

private func runStation(
    _ index: Int, batch: Batch, options: LoadStationsOptions, start: ContinuousClock.Instant,
    latencies: LatencyLog
) async throws -> StationOutcome {
    let queue = try ActionQueue(path: options.disk + "/station-\(index).sqlite")
    let home = SocketTransport(options.servers[index % options.servers.count], token: options.token)
    let other = SocketTransport(options.servers[(index + 1) % options.servers.count], token: options.token)
    let closedPort = SocketTransport(URL(string: "http://127.0.0.1:1")!, token: options.token)
    let product = productClients(index, options: options)
    let outageWindow: Range<Duration>? =
        index % 3 == 0 ? .zero..<(.seconds(options.outage)) : nil
    let transport = LoadTransport(
        home: home, other: other, closedPort: closedPort, start: start, outage: outageWindow, latencies: latencies,
        product: product)
    let drainer = Drainer(queue: queue, transport: transport, backoff: BackoffPolicy(initial: 0.1, cap: 0.5))

    var outcome = StationOutcome(batchId: batch.id)
    var local = Dictionary(uniqueKeysWithValues: batch.tasks.map { ($0.id, $0.qtyPicked) })
    var generator = SystemRandomNumberGenerator()
    for number in 0..<options.actions {
        let task = batch.tasks[number % batch.tasks.count]
        let roll = Int.random(in: 0..<100, using: &generator)
        let action: NewAction
        if options.wrongEvery > 0 && number % options.wrongEvery == options.wrongEvery - 1 {
            action = try .scan(
                org: options.org, pickTaskId: task.id, location: task.location, barcode: "96385074", worker: "w",
                scannedAt: Date())
            outcome.provoked += 1
        } else if roll < 60 {
            action = try .scan(
                org: options.org, pickTaskId: task.id, location: task.location, barcode: task.barcode, worker: "w",
                scannedAt: Date())
            local[task.id, default: 0] += 1
        } else if roll < 90 || task.id != batch.tasks.last?.id {
            // Qty taps set an absolute count, which would hide an earlier action counted twice; so
            // they go to the last task only, and the others are checked against every unit added.
            let qty = 1 + roll % 2
            action = try .pick(org: options.org, pickTaskId: task.id, location: task.location, qty: qty, worker: "w")
            local[task.id, default: 0] += qty
        } else {
            let from = local[task.id, default: 0]
            action = try .setQty(
                org: options.org, pickTaskId: task.id, location: task.location, from: from, to: from + 1, worker: "w")
            local[task.id] = from + 1
        }
        _ = try queue.enqueue(action)
        outcome.enqueued += 1
        let pass = try await drainer.drainPass()
        outcome.sent += pass.sent
        outcome.dead += pass.dead
        if options.pause > .zero { try await Task.sleep(for: options.pause) }
    }
    // Drain what is left (the offline stations' backlog), waiting out the backoff.
    while true {
        let counts = try queue.counts()
        if counts.pending == 0 && counts.inFlight == 0 { break }
        let pass = try await drainer.drainPass()
        outcome.sent += pass.sent
        outcome.dead += pass.dead
        if case .transient(_, let retryAt) = pass.stop {
            try await Task.sleep(for: .milliseconds(max(10, Int(retryAt.timeIntervalSinceNow * 1000))))
        } else if case .notDue(let until) = pass.stop {
            try await Task.sleep(for: .milliseconds(max(10, Int(until.timeIntervalSinceNow * 1000))))
        }
    }
    outcome.expected = local
    outcome.duplicates = transport.duplicates
    outcome.offlineFailures = transport.offlineFailures
    return outcome
}

/// The product's client to the station's server and to the other one, for `https://` servers.
private func productClients(
    _ index: Int, options: LoadStationsOptions
) -> (home: ScanPickHTTPClient, other: ScanPickHTTPClient)? {
    let servers = options.servers
    guard servers[0].scheme == "https" else { return nil }
    func client(_ server: URL) -> ScanPickHTTPClient {
        ScanPickHTTPClient(server: server, tokens: [options.org: options.token], timeout: 30, station: "load-\(index)")
    }
    return (client(servers[index % servers.count]), client(servers[(index + 1) % servers.count]))
}

/// A station's way to the server in the load test: its home server, a closed port while the
/// station is "offline", and every 10th action also sent at once to another server.
private final class LoadTransport: ActionTransport {
    let home: SocketTransport
    let other: SocketTransport
    let closedPort: SocketTransport
    let start: ContinuousClock.Instant
    let outage: Range<Duration>?
    let latencies: LatencyLog
    let product: (home: ScanPickHTTPClient, other: ScanPickHTTPClient)?
    private let counters = Mutex((duplicates: 0, offlineFailures: 0))

    init(
        home: SocketTransport, other: SocketTransport, closedPort: SocketTransport,
        start: ContinuousClock.Instant, outage: Range<Duration>?, latencies: LatencyLog,
        product: (home: ScanPickHTTPClient, other: ScanPickHTTPClient)? = nil
    ) {
        self.product = product
        self.home = home
        self.other = other
        self.closedPort = closedPort
        self.start = start
        self.outage = outage
        self.latencies = latencies
    }

    var duplicates: Int { counters.withLock { $0.duplicates } }
    var offlineFailures: Int { counters.withLock { $0.offlineFailures } }

    func deliver(_ action: QueuedAction) async -> DeliveryOutcome {
        if let outage, outage.contains(ContinuousClock.now - start) {
            counters.withLock { $0.offlineFailures += 1 }
            return closedPort.deliver(action)
        }
        let began = ContinuousClock.now
        let outcome: DeliveryOutcome
        if let product {
            if action.id % 10 == 0 {
                counters.withLock { $0.duplicates += 1 }
                async let copy = product.other.deliver(action)
                outcome = await product.home.deliver(action)
                _ = await copy
            } else {
                outcome = await product.home.deliver(action)
            }
        } else if action.id % 10 == 0 {
            // Both requests are on the wire before either answer is read: they meet at the servers.
            // The station's own request goes first, so the copy is the one that usually finds the
            // key in flight (409) or already stored (a replay).
            counters.withLock { $0.duplicates += 1 }
            let homeSent = home.send(action)
            let duplicateSent = other.send(action)
            outcome =
                homeSent ? home.answer(action) : .transient(status: nil, reason: "cannot connect", retryAfter: nil)
            if duplicateSent { _ = other.receive() }
        } else {
            outcome = home.deliver(action)
        }
        let elapsed = milliseconds(since: began)
        latencies.values.withLock { $0.append(elapsed) }
        return outcome
    }
}

/// The simulated station's HTTP/1.1 client: one keep-alive socket (``KeepAliveClient``) with the
/// same headers and the same answer classification as the product's `ScanPickHTTPClient`.
/// URLSession costs about 0.4 ms of CPU per request on Linux; fifty stations' worth of it on this
/// two-core machine would measure the load generator instead of the servers. Used by one station's
/// serial executor only.
private final class SocketTransport: @unchecked Sendable {
    let host: String
    let port: UInt16
    let token: String
    private var client: KeepAliveClient?

    init(_ server: URL, token: String) {
        host = server.host ?? "127.0.0.1"
        port = UInt16(server.port ?? 80)
        self.token = token
    }

    /// Sends `action` and classifies the answer like the product's transport does.
    func deliver(_ action: QueuedAction) -> DeliveryOutcome {
        guard send(action) else { return .transient(status: nil, reason: "cannot connect", retryAfter: nil) }
        return answer(action)
    }

    /// Reads and classifies the answer to the request ``send(_:)`` wrote for `action`.
    func answer(_ action: QueuedAction) -> DeliveryOutcome {
        guard let response = receive() else {
            return .transient(status: nil, reason: "the connection was lost", retryAfter: nil)
        }
        return DeliveryOutcome.classify(
            status: response.status, headers: response.headers, body: Data(response.body),
            sentKey: action.idempotencyKey)
    }

    /// Writes the request (connecting first if needed); false if the server cannot be reached.
    func send(_ action: QueuedAction) -> Bool {
        for _ in 0..<2 {  // a kept-alive connection the server closed: reconnect once
            do {
                let connection = try client ?? KeepAliveClient(host: host, port: port)
                client = connection
                try connection.write(
                    method: "POST", path: action.path,
                    headers: [
                        "Authorization": "Bearer \(token)", "Content-Type": "application/json",
                        "Idempotency-Key": action.idempotencyKey,
                        ScanPickHTTPClient.clockHeader: Timestamp.iso8601(),
                    ], body: action.payload)
                return true
            } catch {
                client = nil
            }
        }
        return false
    }

    func receive() -> KeepAliveClient.Response? {
        do {
            return try client?.readResponse()
        } catch {
            client = nil
            return nil
        }
    }
}

private func post<Body: Encodable>(_ body: Body, to url: URL, token: String) async throws {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = try JSONEncoder().encode(body)
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    let (data, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw BenchError("\(url.path): \(String(decoding: data, as: UTF8.self))")
    }
}

private func jsonStrings(_ values: some Sequence<String>) -> String {
    "[" + values.map { "\"" + $0.replacingOccurrences(of: "\"", with: "'") + "\"" }.joined(separator: ",") + "]"
}
