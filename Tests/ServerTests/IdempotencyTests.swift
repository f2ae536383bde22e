import Foundation
import Storage
import TestSupport
import Testing

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
        #expect(fixture.server.log.contains(#""replayed":true"#))
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
        let body: [String: Any] = ["pickTaskId": fixture.tasks[1], "qty": 1, "workerId": "w", "at": "t"]
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
        _ = try await fixture.acme.post(
            "/api/orders",
            json: [
                "orders": [
                    [
                        "id": "o1", "carrier": "DHL", "zone": "A", "shipBy": "2026-12-01",
                        "lines": [["id": "l2", "sku": "SKU-C2", "location": "C2", "barcode": "96385074", "qty": 2]],
                    ]
                ]
            ])
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
        try fixture.server.restart()
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
        // and waits inside its transaction; the other must be told 409 at once. The test waits for
        // that answer (the event), then lets the first one through: no guess at how long to wait.
        let blocker = try Blocker(store, fixture.server.database, task: fixture.tasks[0])
        try await withThrowingTaskGroup(of: APIClient.Reply.self) { group in
            for _ in 0..<2 { group.addTask { try await fixture.scan(fixture.tasks[0], "036000291452", key: "slow") } }
            let early: APIClient.Reply?
            do {
                early = try await group.next()
            } catch {
                try? blocker.release()  // never leave the other request waiting on the lock
                throw error
            }
            #expect(early?.status == 409)
            #expect(early?.errorCode == "request_in_progress")
            try blocker.release()
            let waited = try await group.next()
            #expect(waited?.status == 200)
            #expect(waited?.headers["idempotent-replayed"] == nil)
        }
        #expect(try await fixture.picked(fixture.tasks[0]) == 1)
        let third = try await fixture.scan(fixture.tasks[0], "036000291452", key: "slow")
        #expect(third.headers["idempotent-replayed"] == "true")
    }
}
