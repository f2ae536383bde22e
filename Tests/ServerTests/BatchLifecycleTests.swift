import Foundation
import TestSupport
import Testing

/// Batches end: a batch whose tasks are all done is `complete` and still takes corrections until it
/// is closed (a picker's finish or a supervisor's close, `POST /api/batches/{id}/close`, or the
/// server after `batches.autoCloseMinutes`), nothing more counts on a closed batch, and the units it
/// left unpicked go into the next batch, which requires only what is left. Against a real
/// `scanpick serve`, on both stores.
@Suite struct BatchLifecycleTests {
    /// `GET /api/batches`'s ids and done counts; every batch it lists is open or complete.
    func openBatches(_ fixture: PickingFixture) async throws -> [String: Int] {
        let listed = try await fixture.acme.get("/api/batches")
        #expect(listed.status == 200)
        var open: [String: Int] = [:]
        for batch in listed.json["batches"] as? [[String: Any]] ?? [] {
            #expect(["open", "complete"].contains(batch["status"] as? String))
            if let id = batch["id"] as? String { open[id] = batch["complete"] as? Int }
        }
        return open
    }

    @Test(arguments: ServerStoreKind.allCases)
    func aBatchWhoseTasksAreAllDoneIsCompleteAndTakesCorrectionsUntilClosed(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let (a1, b3, c2) = (fixture.tasks[0], fixture.tasks[1], fixture.tasks[2])
        #expect(try await openBatches(fixture) == [fixture.batchId: 0])
        #expect(try await fixture.pick(a1, qty: 3).status == 200)
        #expect(try await fixture.pick(b3, qty: 2).status == 200)
        #expect(try await openBatches(fixture) == [fixture.batchId: 2])
        let open = try await fixture.acme.get("/api/batches/\(fixture.batchId)")
        #expect(open.json["status"] as? String == "open")
        #expect(open.json["closedAt"] == nil)

        let key = UUID().uuidString
        #expect(try await fixture.scan(c2, "96385074", key: key).status == 200)  // the last unit
        let complete = try await fixture.acme.get("/api/batches/\(fixture.batchId)")
        #expect(complete.json["status"] as? String == "complete")
        #expect(complete.json["closedAt"] == nil)
        let listed = try await fixture.acme.get("/api/batches")
        #expect((listed.json["batches"] as? [[String: Any]])?.map { $0["status"] as? String } == ["complete"])
        #expect(try await openBatches(fixture) == [fixture.batchId: 3])
        // The last scan sent again replays its answer; a unit more is an over-pick.
        let replay = try await fixture.scan(c2, "96385074", key: key)
        #expect(replay.status == 200)
        #expect(replay.headers["idempotent-replayed"] == "true")
        #expect(try await fixture.pick(a1, qty: 1).errorCode == "over_pick")
        // A correction down opens it again; back up, it is complete again.
        #expect(try await fixture.setQty(a1, from: 3, to: 2).status == 200)
        #expect(try await fixture.status() == "open")
        #expect(try await fixture.pick(a1, qty: 1).status == 200)  // a pick that fits is taken
        #expect(try await fixture.status() == "complete")

        // Closed, nothing more counts.
        let closed = try await fixture.acme.post("/api/batches/\(fixture.batchId)/close", json: [:] as [String: Any])
        #expect(closed.json["status"] as? String == "closed")
        #expect(closed.json["closedAt"] is String)
        #expect(try await openBatches(fixture).isEmpty)
        let correction = try await fixture.setQty(a1, from: 3, to: 2)
        #expect(correction.status == 409)
        #expect(correction.errorCode == "batch_closed")
        #expect((correction.json["message"] as? String)?.contains(fixture.batchId) == true)
        #expect(try await fixture.short(b3, qty: 1).errorCode == "batch_closed")
        #expect(try await fixture.picked(a1) == 3)
    }

    @Test(arguments: ServerStoreKind.allCases) func aClosedBatchsUnpickedUnitsGoIntoTheNextBatch(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let (a1, c2) = (fixture.tasks[0], fixture.tasks[2])
        #expect(try await fixture.pick(a1, qty: 1).status == 200)
        #expect(try await fixture.pick(c2, qty: 1).status == 200)  // C2's line is done
        // While the batch is open its lines are taken.
        #expect(try await fixture.acme.post("/api/batches", json: ["filters": [:] as [String: Any]]).status == 422)

        let closed = try await fixture.acme.post("/api/batches/\(fixture.batchId)/close", json: [:] as [String: Any])
        #expect(closed.status == 200)
        #expect(closed.json["status"] as? String == "closed")
        let closedAt = try #require(closed.json["closedAt"] as? String)
        // Closing again changes nothing: the first close's time stays.
        let again = try await fixture.acme.post("/api/batches/\(fixture.batchId)/close", json: [:] as [String: Any])
        #expect(again.status == 200)
        #expect(again.json["closedAt"] as? String == closedAt)
        let late = try await fixture.pick(a1, qty: 1)
        #expect(late.status == 409)
        #expect(late.errorCode == "batch_closed")
        // The batch being closed is the answer whatever else the change gets wrong (an over-pick,
        // another item): "closed" is what the picker must hear.
        #expect(try await fixture.pick(a1, qty: 99).errorCode == "batch_closed")
        #expect(try await fixture.scan(a1, "4006381333931").errorCode == "batch_closed")
        #expect(try await fixture.picked(a1) == 1)

        // The next batch takes what is left: 2 of A1, all of B3, nothing of C2.
        let next = try await fixture.acme.post("/api/batches", json: ["filters": [:] as [String: Any]])
        #expect(next.status == 201)
        let tasks = next.json["tasks"] as? [[String: Any]] ?? []
        #expect(tasks.map { $0["location"] as? String } == ["A1", "B3"])
        #expect(tasks.map { $0["qtyRequired"] as? Int } == [2, 2])
        #expect(tasks.map { $0["qtyPicked"] as? Int } == [0, 0])
        let nextId = try #require(next.json["id"] as? String)
        #expect(try await openBatches(fixture) == [nextId: 0])

        // Closed again with one more unit of A1 picked: the third batch requires the last one.
        let nextA1 = try #require(tasks.first?["id"] as? String)
        #expect(try await fixture.pick(nextA1, qty: 1).status == 200)
        #expect(try await fixture.acme.post("/api/batches/\(nextId)/close", json: [:] as [String: Any]).status == 200)
        let third = try await fixture.acme.post("/api/batches", json: ["filters": [:] as [String: Any]])
        let thirdTasks = third.json["tasks"] as? [[String: Any]] ?? []
        #expect(thirdTasks.map { $0["location"] as? String } == ["A1", "B3"])
        #expect(thirdTasks.map { $0["qtyRequired"] as? Int } == [1, 2])
        // Over-picking the remainder is refused like any over-pick.
        let thirdA1 = try #require(thirdTasks.first?["id"] as? String)
        let over = try await fixture.pick(thirdA1, qty: 2)
        #expect(over.status == 422)
        #expect(over.errorCode == "over_pick")
    }

    @Test(arguments: ServerStoreKind.allCases) func closingNeedsTheOrganisationsOwnBatch(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let missing = try await fixture.acme.post("/api/batches/batch-none/close", json: [:] as [String: Any])
        #expect(missing.status == 404)
        let foreign = try await fixture.globex.post(
            "/api/batches/\(fixture.batchId)/close", json: [:] as [String: Any])
        #expect(foreign.status == 404)
        #expect((try await fixture.globex.get("/api/batches").json["batches"] as? [Any])?.isEmpty == true)
        #expect(try await fixture.acme.get("/api/batches/\(fixture.batchId)").json["status"] as? String == "open")
        let tooLong = String(repeating: "b", count: 1000)
        let hostile = try await fixture.acme.post("/api/batches/\(tooLong)/close", json: [:] as [String: Any])
        #expect(hostile.status == 400)
        #expect(hostile.errorCode == "invalid_field")
        // The body is `{}` or nothing: anything else is refused, and the batch stays open.
        for body in ["[]", "not json", "\"closed\"", "{\"a\":"] {
            let malformed = try await fixture.acme.send(
                "POST", "/api/batches/\(fixture.batchId)/close", body: Data(body.utf8))
            #expect(malformed.status == 400, "\(body)")
            #expect(malformed.errorCode == "bad_request", "\(body)")
        }
        #expect(try await fixture.acme.get("/api/batches/\(fixture.batchId)").json["status"] as? String == "open")
        let bare = try await fixture.acme.send("POST", "/api/batches/\(fixture.batchId)/close", body: nil)
        #expect(bare.status == 200)
    }

    /// The last picks of a batch made side by side, each completing its own task: whichever
    /// commits last sees the others' and makes the batch complete (with PostgreSQL each pick locks
    /// the batch's row, so none decides on a view without the others).
    @Test(arguments: ServerStoreKind.allCases) func theLastPicksMadeTogetherCompleteTheBatch(store: ServerStoreKind)
        async throws
    {
        for _ in 0..<3 {
            let fixture = try await PickingFixture(store: store)
            let (a1, b3, c2) = (fixture.tasks[0], fixture.tasks[1], fixture.tasks[2])
            #expect(try await fixture.pick(a1, qty: 2).status == 200)
            #expect(try await fixture.pick(b3, qty: 1).status == 200)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for task in [a1, b3, c2] { group.addTask { try await fixture.pick(task, qty: 1).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == [200, 200, 200])
            let batch = try await fixture.acme.get("/api/batches/\(fixture.batchId)")
            #expect(batch.json["status"] as? String == "complete")
            #expect((batch.json["tasks"] as? [[String: Any]])?.map { $0["qtyPicked"] as? Int } == [3, 2, 1])
        }
    }
}
