import Foundation
import TestSupport
import Testing

/// What one tenant's requests may cost the others: memory that stays, and time holding the writer.
@Suite(.serialized) struct ResourceBoundsTests {
    static func orders(_ count: Int, linesEach: Int, prefix: String) -> [[String: Any]] {
        (0..<count).map { number in
            [
                "id": "\(prefix)\(number)", "carrier": "BULK", "zone": "Z", "shipBy": "2026-12-09",
                "lines": (0..<linesEach).map { line in
                    [
                        "id": "l\(line)", "sku": "S\(line)", "location": "R\(number)-\(line)",
                        "barcode": "4006381333931", "qty": 2,
                    ] as [String: Any]
                },
            ]
        }
    }

    @Test(arguments: ServerStoreKind.allCases)
    func manyOrderIdListsOfDifferentLengthsDoNotGrowMemory(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        _ = try await PickingScenario.create(on: acme)
        let warm = try await acme.post("/api/batches", json: ["filters": ["orderIds": ["none"]]])
        #expect(warm.errorCode == "nothing_to_batch")
        let before = try #require(server.residentBytes)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for number in stride(from: worker, to: 5000, by: 8) {
                        let ids = (0...(number % 1000)).map { "missing-\($0)" }
                        let reply = try await acme.post("/api/batches", json: ["filters": ["orderIds": ids]])
                        guard reply.errorCode == "nothing_to_batch" else {
                            throw ServerProcessError(message: "request \(number): \(reply.status) \(reply.text)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let after = try #require(server.residentBytes)
        #expect(after - before < 64 << 20, "RSS grew from \(before >> 20) MB to \(after >> 20) MB")
    }

    @Test(arguments: ServerStoreKind.allCases)
    func listsLongerThanTheirLimitAreRefused(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let ids = (0...1000).map { "o\($0)" }
        let batch = try await acme.post("/api/batches", json: ["filters": ["orderIds": ids]])
        #expect(batch.status == 422)
        #expect(batch.errorCode == "too_many_items")
        let orders = try await acme.post("/api/orders", json: ["orders": Self.orders(1001, linesEach: 0, prefix: "o")])
        #expect(orders.errorCode == "too_many_items")
        let lines = try await acme.post("/api/orders", json: ["orders": Self.orders(10, linesEach: 501, prefix: "o")])
        #expect(lines.errorCode == "too_many_items")
        #expect((lines.json["message"] as? String)?.contains("5000") == true)
    }

    /// The largest requests the contract allows, three of each at once, while another organisation
    /// picks: the picks are answered promptly (they go before bulk writes in each group commit, and
    /// each bulk request's work is bounded). How long each request holds the writer in a release
    /// build is measured by `scripts/bench-server`.
    @Test(arguments: ServerStoreKind.allCases)
    func theLargestLegalRequestsDoNotHoldTheWriterFromAnotherTenant(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let globex = APIClient(server.baseURL, token: ServerProcess.tokens["globex"])
        let scenario = try await PickingScenario.create(on: globex, bulkQty: 100_000)
        let bulk = scenario.tasks[3]

        let feed = try JSONSerialization.data(withJSONObject: ["orders": Self.orders(1000, linesEach: 5, prefix: "big")]
        )
        let upsert = try await acme.send("POST", "/api/orders", body: feed)
        #expect(upsert.status == 200, "\(upsert.text)")
        let ids = (0..<1000).map { "big\($0)" }

        async let big: [Int] = withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask { try await acme.post("/api/batches", json: ["filters": ["orderIds": ids]]).status }
                group.addTask { try await acme.send("POST", "/api/orders", body: feed).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var waits: [Duration] = []
        for number in 0..<20 {
            let start = ContinuousClock.now
            let reply = try await globex.post(
                "/api/picking/pick",
                json: ["pickTaskId": bulk, "qty": 1, "idempotencyKey": "p\(number)", "workerId": "w", "at": actionTime])
            waits.append(ContinuousClock.now - start)
            #expect(reply.status == 200)
        }
        let statuses = try await big
        #expect(statuses.filter { $0 == 201 }.count == 3, "\(statuses)")
        #expect(waits.sorted()[waits.count / 2] < .milliseconds(250), "picks waited \(waits)")
        // Three batches took 3,000 of the 5,000 lines; the rest come 1,000 at a time.
        for expected in [1000, 1000, 0] {
            let next = try await acme.post("/api/batches", json: ["filters": ["carrier": "BULK"]])
            #expect((next.json["tasks"] as? [Any])?.count ?? 0 == expected, "\(next.text.prefix(200))")
        }
    }
}
