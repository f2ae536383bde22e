import Foundation
import TestSupport
import Testing
import Timestamps

/// Short picks (`POST /api/picking/short`): units that will not be picked, with why. A task is done
/// when picked + short = required; nothing may pass it; the report is idempotent like a pick; a
/// set-qty's count wins over shorts that no longer fit. Against a real `scanpick serve`, on both
/// stores.
@Suite struct ShortPickTests {
    @Test(arguments: ServerStoreKind.allCases) func aShortPickFinishesATask(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let (a1, b3, c2) = (fixture.tasks[0], fixture.tasks[1], fixture.tasks[2])
        #expect(try await fixture.pick(a1, qty: 1).status == 200)
        let key = UUID().uuidString
        let short = try await fixture.short(a1, qty: 2, reason: "not_found", key: key)
        #expect(short.status == 200)
        #expect(short.headers["idempotency-key"] == key)
        #expect(short.pickTask["qtyShort"] as? Int == 2)
        #expect(short.pickTask["qtyPicked"] as? Int == 1)
        #expect(try await fixture.task(a1)["qtyShort"] as? Int == 2)

        // The same report again replays its answer byte for byte and counts nothing more.
        let replay = try await fixture.short(a1, qty: 2, reason: "not_found", key: key)
        #expect(replay.status == 200)
        #expect(replay.headers["idempotent-replayed"] == "true")
        #expect(replay.body == short.body)
        // The key with another report is refused.
        #expect(try await fixture.short(a1, qty: 1, reason: "damaged", key: key).errorCode == "idempotency_key_reused")

        // Done: neither a pick, a scan nor another short passes picked + short = required.
        for refused in [
            try await fixture.pick(a1, qty: 1), try await fixture.short(a1, qty: 1),
            try await fixture.scan(a1, "036000291452"),
        ] {
            #expect(refused.status == 422)
            #expect(refused.errorCode == "over_pick")
        }
        // A short larger than what is left is refused whole.
        let tooMany = try await fixture.short(b3, qty: 3, reason: "damaged")
        #expect(tooMany.errorCode == "over_pick")
        #expect((tooMany.json["message"] as? String)?.contains("2 required") == true)
        #expect(try await fixture.task(b3)["qtyShort"] as? Int == 0)

        // Shortages are listed by task and reason, in pick order.
        #expect(try await fixture.short(b3, qty: 1, reason: "damaged").status == 200)
        #expect(try await fixture.short(b3, qty: 1, reason: "other").status == 200)
        let batch = try await fixture.acme.get("/api/batches/\(fixture.batchId)")
        let shortages = try #require(batch.json["shortages"] as? [[String: Any]])
        #expect(shortages.map { $0["pickTaskId"] as? String } == [a1, b3, b3])
        #expect(shortages.map { $0["qty"] as? Int } == [2, 1, 1])
        #expect(shortages.map { $0["reason"] as? String } == ["not_found", "damaged", "other"])
        // Two tasks of three done: still open; the last one short makes it complete.
        #expect(batch.json["status"] as? String == "open")
        #expect(try await fixture.short(c2, qty: 1, reason: "other").status == 200)
        #expect(try await fixture.status() == "complete")
        let listed = try await fixture.acme.get("/api/batches")
        #expect((listed.json["batches"] as? [[String: Any]])?.first?["complete"] as? Int == 3)
    }

    @Test(arguments: ServerStoreKind.allCases)
    func aSetQtyCountWinsOverShortsThatNoLongerFit(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let (a1, b3, c2) = (fixture.tasks[0], fixture.tasks[1], fixture.tasks[2])
        #expect(try await fixture.short(a1, qty: 1, reason: "damaged").status == 200)
        #expect(try await fixture.short(a1, qty: 2, reason: "not_found").status == 200)
        #expect(try await fixture.pick(b3, qty: 2).status == 200)
        #expect(try await fixture.pick(c2, qty: 1).status == 200)
        #expect(try await fixture.status() == "complete")

        // Found one after all: a count of 1 leaves room for 2 short; the latest reason gives way first.
        let found = try await fixture.setQty(a1, from: 0, to: 1)
        #expect(found.status == 200)
        #expect(found.pickTask["qtyPicked"] as? Int == 1)
        #expect(found.pickTask["qtyShort"] as? Int == 2)
        var shortages =
            try await fixture.acme.get("/api/batches/\(fixture.batchId)").json["shortages"] as? [[String: Any]]
        #expect(shortages?.map { $0["reason"] as? String } == ["damaged", "not_found"])
        #expect(shortages?.map { $0["qty"] as? Int } == [1, 1])
        #expect(try await fixture.status() == "complete")
        // Found them all: no shortage is left.
        let all = try await fixture.setQty(a1, from: 1, to: 3)
        #expect(all.pickTask["qtyShort"] as? Int == 0)
        shortages = try await fixture.acme.get("/api/batches/\(fixture.batchId)").json["shortages"] as? [[String: Any]]
        #expect(shortages?.isEmpty == true)
        // A count down leaves the shorts at 0 and the task undone: the batch is open again.
        #expect(try await fixture.setQty(a1, from: 3, to: 2).pickTask["qtyShort"] as? Int == 0)
        #expect(try await fixture.status() == "open")
        // Over required is still over_pick.
        #expect(try await fixture.setQty(a1, from: 2, to: 4).errorCode == "over_pick")
    }

    /// A short and a pick of the last unit of one task, side by side: exactly one counts (with
    /// PostgreSQL both lock the task's row; SQLite runs one writer).
    @Test(arguments: ServerStoreKind.allCases) func aShortAndAPickOfTheLastUnitCountOnce(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        for task in fixture.tasks.prefix(2) {
            // A1 needs 3, B3 2: pick all but one, then race a short and a pick for the last.
            let required = try await fixture.task(task)["qtyRequired"] as? Int ?? 0
            #expect(try await fixture.pick(task, qty: required - 1).status == 200)
            async let short = fixture.short(task, qty: 1)
            async let pick = fixture.pick(task, qty: 1)
            let statuses = [try await short.status, try await pick.status].sorted()
            #expect(statuses == [200, 422])
            let after = try await fixture.task(task)
            #expect((after["qtyPicked"] as? Int ?? 0) + (after["qtyShort"] as? Int ?? 0) == required)
        }
    }

    @Test(arguments: ServerStoreKind.allCases) func aShortsFieldsAreChecked(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let a1 = fixture.tasks[0]
        func short(_ fields: [String: Any]) async throws -> APIClient.Reply {
            var body: [String: Any] = [
                "pickTaskId": a1, "qty": 1, "reason": "other", "idempotencyKey": UUID().uuidString, "workerId": "w",
                "at": fixture.at,
            ]
            body.merge(fields) { _, new in new }
            return try await fixture.acme.post("/api/picking/short", json: body)
        }
        for qty in [0, -1, 100_001, Int.max, Int.min] {
            let refused = try await short(["qty": qty])
            #expect(refused.status == 422, "\(qty)")
            #expect(refused.errorCode == "invalid_quantity", "\(qty)")
        }
        let huge = try await fixture.acme.send(
            "POST", "/api/picking/short",
            body: Data(
                #"{"pickTaskId":"\#(a1)","qty":1e30,"reason":"other","idempotencyKey":"k-huge","workerId":"w","at":"\#(fixture.at)"}"#
                    .utf8))
        #expect(huge.status == 400)
        for reason in ["NOT_FOUND", "", "lost", "not_found\u{0}", "\u{202E}damaged"] {
            let refused = try await short(["reason": reason])
            #expect(refused.status == 400, "\(reason)")
            #expect(refused.errorCode == "invalid_field", "\(reason)")
            #expect(
                (refused.json["message"] as? String)?.hasPrefix("reason must be one of not_found, damaged, other")
                    == true)
            #expect(!refused.text.contains("\u{202E}"))
        }
        #expect(try await short(["pickTaskId": "task-none"]).status == 404)
        #expect(try await short(["workerId": "w\u{0}"]).errorCode == "invalid_field")
        for at in ["2026-10-26T18:17:36", "2026-10-26", "not a time"] {  // RFC 3339 with a zone only
            #expect(try await short(["at": at]).errorCode == "invalid_field", "\(at)")
        }
        #expect(try await fixture.acme.post("/api/picking/short", json: ["pickTaskId": a1, "qty": 1]).status == 400)
        // Another organisation's task does not exist for it.
        let foreign = try await fixture.globex.post(
            "/api/picking/short",
            json: [
                "pickTaskId": a1, "qty": 1, "reason": "other", "idempotencyKey": "g1", "workerId": "w",
                "at": fixture.at,
            ])
        #expect(foreign.status == 404)
        // An action from before the idempotency horizon is refused, never counted.
        let old = try await short(["at": Timestamp.iso8601(Date().addingTimeInterval(-40 * 86_400))])
        #expect(old.errorCode == "too_old_to_deduplicate")
        #expect(try await fixture.task(a1)["qtyShort"] as? Int == 0)
    }
}
