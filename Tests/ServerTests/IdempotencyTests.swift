import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The idempotency rules, against a real `scanpick serve` on each store.
@Suite struct IdempotencyTests {
    @Test(arguments: ServerStoreKind.allCases) func aReplayReturnsTheStoredAnswerByteForByteAndChangesNothing(
        store: ServerStoreKind
    ) async throws {
        let fixture = try await PickingFixture(store: store)
        let a1 = fixture.tasks[0]
        let first = try await fixture.scan(a1, "036000291452", key: "scan-1")
        _ = try await fixture.pick(a1, qty: 1)  // the task moves on after the first scan
        let replay = try await fixture.scan(a1, "036000291452", key: "scan-1")
        #expect(replay.status == first.status)
        #expect(replay.body == first.body)
        #expect(replay.headers["idempotent-replayed"] == "true")
        #expect(first.headers["idempotent-replayed"] == nil)
        #expect(try await fixture.picked(a1) == 2)
        #expect(await eventually { fixture.server.log.contains(#""replayed":true"#) })  // logged after the answer
    }

    /// A station counts an action as delivered only on an answer that carries its key: every
    /// idempotent answer, first or replayed, on every idempotent route, echoes it.
    @Test(arguments: ServerStoreKind.allCases) func everyIdempotentAnswerEchoesItsKey(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let a1 = fixture.tasks[0]
        let requests: [(String, [String: Any])] = [
            ("/api/picking/submit-scan", ["pickTaskId": a1, "barcode": "036000291452", "scannedAt": fixture.at]),
            ("/api/picking/pick", ["pickTaskId": a1, "qty": 1, "at": fixture.at]),
            ("/api/picking/set-qty", ["pickTaskId": a1, "from": 2, "to": 3, "at": fixture.at]),
            ("/api/shipments", ["orderId": "o1", "units": [["pickTaskId": a1, "qty": 3]], "at": fixture.at]),
        ]
        var shipment: String?
        for (index, (path, fields)) in requests.enumerated() {
            var body = fields
            body["idempotencyKey"] = "echo-\(index)"
            if path.hasPrefix("/api/picking/") { body["workerId"] = "w" }
            let first = try await fixture.acme.post(path, json: body)
            let replay = try await fixture.acme.post(path, json: body)
            #expect((200..<300).contains(first.status), "\(path): \(first.text)")
            #expect(first.headers["idempotency-key"] == "echo-\(index)", "\(path)")
            #expect(replay.headers["idempotency-key"] == "echo-\(index)", "\(path)")
            #expect(replay.headers["idempotent-replayed"] == "true", "\(path)")
            shipment = shipment ?? (first.json["id"] as? String)
        }
        let id = try #require(shipment)
        let void = try await fixture.acme.post(
            "/api/shipments/\(id)/void", json: ["at": fixture.at], headers: ["Idempotency-Key": "echo-void"])
        #expect(void.status == 200)
        #expect(void.headers["idempotency-key"] == "echo-void")
        // A refusal is not an idempotent answer: it stores nothing, and carries no key to count on.
        let refused = try await fixture.pick(a1, qty: 9, key: "echo-refused")
        #expect(refused.errorCode == "over_pick")
        #expect(refused.headers["idempotency-key"] == nil)
    }

    @Test(arguments: ServerStoreKind.allCases) func theSameKeyForAnotherRequestIsRefused(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        #expect(try await fixture.pick(fixture.tasks[0], qty: 1, key: "k").status == 200)
        let reused = try await fixture.pick(fixture.tasks[0], qty: 2, key: "k")
        #expect(reused.status == 422)
        #expect(reused.errorCode == "idempotency_key_reused")
        #expect(try await fixture.picked(fixture.tasks[0]) == 1)
    }

    @Test(arguments: ServerStoreKind.allCases) func theKeyMayComeAsAHeaderButBothMustAgree(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let body: [String: Any] = ["pickTaskId": fixture.tasks[1], "qty": 1, "workerId": "w", "at": actionTime]
        let missing = try await fixture.acme.post("/api/picking/pick", json: body)
        #expect(missing.status == 400)
        let viaHeader = try await fixture.acme.post("/api/picking/pick", json: body, headers: ["Idempotency-Key": "h1"])
        #expect(viaHeader.status == 200)
        let replay = try await fixture.acme.post("/api/picking/pick", json: body, headers: ["Idempotency-Key": "h1"])
        #expect(replay.headers["idempotent-replayed"] == "true")
        var both = body
        both["idempotencyKey"] = "h2"
        let disagree = try await fixture.acme.post("/api/picking/pick", json: both, headers: ["Idempotency-Key": "h3"])
        #expect(disagree.status == 400)
        for bad in ["", "has space", String(repeating: "x", count: 256), "naïve"] {
            both["idempotencyKey"] = bad
            #expect(try await fixture.acme.post("/api/picking/pick", json: both).status == 400, "\(bad)")
        }
        #expect(try await fixture.picked(fixture.tasks[1]) == 1)
    }

    @Test(arguments: ServerStoreKind.allCases) func aRefusalIsNotStoredSoARetryIsJudgedAfresh(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let c2 = fixture.tasks[2]  // 1 unit required
        let refused = try await fixture.pick(c2, qty: 2, key: "retry-me")
        #expect(refused.errorCode == "over_pick")
        // Support raises the order's quantity; the same action with the same key now goes through.
        _ = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: ["id": "l2", "sku": "SKU-C2", "location": "C2", "barcode": "96385074", "qty": 2])
        let retried = try await fixture.pick(c2, qty: 2, key: "retry-me")
        #expect(retried.status == 200)
        #expect(retried.headers["idempotent-replayed"] == nil)
        #expect(try await fixture.picked(c2) == 2)
    }

    @Test(arguments: ServerStoreKind.allCases) func aReplayStillReplaysAfterARestart(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let first = try await fixture.scan(fixture.tasks[0], "036000291452", key: "durable")
        try await fixture.server.restart()
        let client = APIClient(fixture.server.baseURL, token: ServerProcess.tokens["acme"])
        let replay = try await client.post(
            "/api/picking/submit-scan",
            json: [
                "pickTaskId": fixture.tasks[0], "barcode": "036000291452", "scannedAt": fixture.at,
                "idempotencyKey": "durable", "workerId": "worker-003",
            ])
        #expect(replay.body == first.body)
        #expect(replay.headers["idempotent-replayed"] == "true")
    }

    @Test(arguments: ServerStoreKind.allCases) func twentyConcurrentRequestsWithOneKeyHaveOneEffect(
        store: ServerStoreKind
    ) async throws {
        let fixture = try await PickingFixture(store: store)
        let a1 = fixture.tasks[0]
        let replies = try await withThrowingTaskGroup(of: APIClient.Reply.self) { group in
            for _ in 0..<20 { group.addTask { try await fixture.scan(a1, "036000291452", key: "same-key") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.count == 20)
        #expect(replies.allSatisfy { $0.status == 200 || ($0.status == 409 && $0.errorCode == "request_in_progress") })
        let fresh = replies.filter { $0.status == 200 && $0.headers["idempotent-replayed"] == nil }
        #expect(fresh.count == 1)
        #expect(try await fixture.picked(a1) == 1)
    }

    @Test(arguments: ServerStoreKind.allCases) func aKeyStillRunningGets409(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        // Hold the database from outside, as a slow disk would: SQLite's write lock, or PostgreSQL's
        // row lock on the task. Of two requests with one key, whichever comes first claims the key
        // and waits inside its transaction; the other must be told 409 at once. The lock is let go
        // when that first answer arrives (the event), on the thread that receives it: no guess at
        // how long to wait, and no dependence on the test's task pool, which a full parallel run
        // can starve for longer than SQLite's 5 s busy timeout.
        let blocker = Unshared(try Blocker(store, fixture.server.database, task: fixture.tasks[0]))
        var request = URLRequest(url: fixture.server.baseURL.appendingPathComponent("/api/picking/submit-scan"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(ServerProcess.tokens["acme"] ?? "")", forHTTPHeaderField: "Authorization")
        request.httpBody = try JSONSerialization.data(withJSONObject: [
            "pickTaskId": fixture.tasks[0], "barcode": "036000291452", "scannedAt": fixture.at,
            "idempotencyKey": "slow", "workerId": "worker-003",
        ])
        let replies = await Self.sendTwice(request) { try? blocker.value.release() }
        #expect(replies.map(\.status) == [409, 200])
        #expect(replies.first?.body.contains("request_in_progress") == true)
        #expect(try await fixture.picked(fixture.tasks[0]) == 1)
        let third = try await fixture.scan(fixture.tasks[0], "036000291452", key: "slow")
        #expect(third.headers["idempotent-replayed"] == "true")
        // /metrics counts the 409 and the replay.
        let scrape = try await ServerMetricsTests.scrape(fixture.server.baseURL)
        #expect(scrape.value("scanpick_http_conflicts_total") == 1)
        #expect(scrape.value("scanpick_idempotent_replays_total") == 1)
        #expect(scrape.value("scanpick_http_requests_total", ["route": "submit_scan", "code": "409"]) == 1)
    }

    /// Sends `request` twice at once and returns the answers in the order they arrived; `onFirst`
    /// runs on URLSession's thread the moment the first one is in.
    static func sendTwice(_ request: URLRequest, onFirst: @escaping @Sendable () -> Void) async -> [(
        status: Int, body: String
    )] {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 4
        configuration.timeoutIntervalForRequest = 30
        let session = URLSession(configuration: configuration)
        let replies = Mutex<[(status: Int, body: String)]>([])
        return await withCheckedContinuation { continuation in
            for _ in 0..<2 {
                session.dataTask(with: request) { data, response, _ in
                    let reply = (
                        (response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data ?? Data(), as: UTF8.self)
                    )
                    let all = replies.withLock { replies -> [(status: Int, body: String)]? in
                        replies.append(reply)
                        return replies.count == 2 ? replies : nil
                    }
                    if let all { continuation.resume(returning: all) } else { onFirst() }
                }.resume()
            }
        }
    }
}

/// A value used by one thread at a time, handed to another (the blocker released from URLSession's
/// thread once the test is waiting): hence `@unchecked Sendable`.
final class Unshared<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
