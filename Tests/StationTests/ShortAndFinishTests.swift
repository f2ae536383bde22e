import Foundation
import TestSupport
import Testing

/// What a pick is, seen from the station: product names and totes cached and shown, short picks
/// counted at once and queued like any tap, a complete batch that still takes corrections, and the
/// picker's "Finish batch" (the page's `POST /api/batches/{id}/close`, `scanpick batch close`)
/// queued behind the taps before it. Against a real server and a real station.
@Suite struct ShortAndFinishTests {
    /// A fixture whose order line A1 has a product name, with its batch opened on the station.
    func namedFixture() async throws -> StationFixture {
        let fixture = try await StationFixture(openBatch: false)
        let named = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: [
                "id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 3,
                "name": "COFFEE ARABICA 1KG",
            ])
        #expect(named.status == 200)
        let opened = try await fixture.scanpick(["batch", "open", fixture.scenario.batchId, "--org", "acme"])
        #expect(opened.status == 0, "\(opened.standardError)")
        #expect(opened.standardOutput.contains("active: A1  COFFEE ARABICA 1KG  036000291452  0/3  tote 1  (task "))
        return fixture
    }

    /// The server's task `id` as it now stands.
    func serverTask(_ fixture: StationFixture, _ id: String) async throws -> [String: Any] {
        let batch = try await fixture.acme.get("/api/batches/\(fixture.scenario.batchId)")
        return (batch.json["tasks"] as? [[String: Any]] ?? []).first { $0["id"] as? String == id } ?? [:]
    }

    @Test func thePageReportsShortsCorrectsAndFinishesABatch() async throws {
        let fixture = try await namedFixture()
        let (a1, b3, c2) = (fixture.scenario.tasks[0], fixture.scenario.tasks[1], fixture.scenario.tasks[2])
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        func list() async throws -> [String: Any] { try await page.get("/api/pick-list").json }
        func row(_ id: String) async throws -> [String: Any] {
            (try await list()["tasks"] as? [[String: Any]] ?? []).first { $0["id"] as? String == id } ?? [:]
        }
        let first = try await list()
        #expect(first["status"] as? String == "open")
        #expect(first["closed"] as? Bool == false)
        let rows = first["tasks"] as? [[String: Any]] ?? []
        #expect(rows.map { $0["name"] as? String } == ["COFFEE ARABICA 1KG", nil, nil])
        #expect(rows.map { $0["tote"] as? Int } == [1, 2, 1])
        #expect(rows.map { $0["qtyShort"] as? Int } == [0, 0, 0])

        // Two of A1 are not there: counted on the station at once, then on the server.
        let short = try await page.post(
            "/api/taps", json: ["pickTaskId": a1, "kind": "short", "qty": 2, "reason": "not_found"])
        #expect(short.status == 200, "\(short.text)")
        let answered = short.json["pickTask"] as? [String: Any] ?? [:]
        #expect(answered["qtyShort"] as? Int == 2)
        #expect(answered["name"] as? String == "COFFEE ARABICA 1KG")
        #expect(try await row(a1)["qtyShort"] as? Int == 2)
        #expect(try await eventually { try await serverTask(fixture, a1)["qtyShort"] as? Int == 2 })

        // The station refuses what the server would, before anything is queued.
        let refusals: [([String: Any], Int, String)] = [
            (["pickTaskId": a1, "kind": "short", "qty": 2, "reason": "damaged"], 422, "refused"),  // 1 left
            (["pickTaskId": a1, "kind": "short", "qty": 0, "reason": "damaged"], 422, "invalid_quantity"),
            (["pickTaskId": a1, "kind": "short", "qty": -3, "reason": "damaged"], 422, "invalid_quantity"),
            (["pickTaskId": a1, "kind": "short", "qty": 1, "reason": "lost"], 400, "invalid_field"),
            (["pickTaskId": a1, "kind": "short", "qty": 1, "reason": "damaged\u{0}"], 400, "invalid_field"),
            (["pickTaskId": a1, "kind": "short", "qty": 1], 400, "bad_request"),
            (["pickTaskId": a1, "kind": "short", "reason": "other"], 400, "bad_request"),
            (["pickTaskId": a1, "kind": "pick", "qty": 2], 422, "refused"),  // picked + short over required
            (["pickTaskId": "task-none", "kind": "short", "qty": 1, "reason": "other"], 422, "refused"),
        ]
        for (body, status, code) in refusals {
            let refused = try await page.post("/api/taps", json: body)
            #expect(refused.status == status, "\(body): \(refused.text)")
            #expect(refused.errorCode == code, "\(body)")
        }
        let huge = try await page.send(
            "POST", "/api/taps",
            body: Data(#"{"pickTaskId":"\#(a1)","kind":"short","qty":1e30,"reason":"other"}"#.utf8))
        #expect(huge.errorCode == "invalid_quantity")
        #expect(try await row(a1)["qtyShort"] as? Int == 2)

        // The rest done: picked or short. The batch is complete, not closed.
        for body: [String: Any] in [
            ["pickTaskId": a1, "kind": "pick", "qty": 1], ["pickTaskId": b3, "kind": "pick", "qty": 2],
            ["pickTaskId": c2, "kind": "short", "qty": 1, "reason": "damaged"],
        ] {
            #expect(try await page.post("/api/taps", json: body).status == 200, "\(body)")
        }
        var complete = try await list()
        #expect(complete["status"] as? String == "complete")
        #expect(complete["closed"] as? Bool == false)
        #expect(complete["activeTaskId"] is NSNull)
        // A correction still counts: the picker found the two A1 reported missing.
        let found = try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "setQty", "from": 1, "to": 3])
        #expect(found.status == 200, "\(found.text)")
        #expect((found.json["pickTask"] as? [String: Any])?["qtyShort"] as? Int == 0)
        complete = try await list()
        #expect(complete["status"] as? String == "complete")

        // Finish batch: closed on the station at once, sent after the taps before it.
        let id = fixture.scenario.batchId
        let finished = try await page.post("/api/batches/\(id)/close", json: [:] as [String: Any])
        #expect(finished.status == 200, "\(finished.text)")
        #expect(finished.json["status"] as? String == "closed")
        #expect(finished.json["closed"] as? Bool == true)
        #expect(finished.json["batchId"] as? String == id)
        let late = try await page.post("/api/taps", json: ["pickTaskId": b3, "kind": "setQty", "from": 2, "to": 1])
        #expect(late.status == 409)
        #expect(late.errorCode == "batch_closed")
        #expect(
            try await eventually {
                try await fixture.acme.get("/api/batches/\(id)").json["status"] as? String == "closed"
            })
        let server = try await fixture.acme.get("/api/batches/\(id)")
        #expect((server.json["tasks"] as? [[String: Any]])?.map { $0["qtyPicked"] as? Int } == [3, 2, 0])
        #expect((server.json["tasks"] as? [[String: Any]])?.map { $0["qtyShort"] as? Int } == [0, 0, 1])
        let queue = try await page.get("/api/queue")
        let actions = try JSONSerialization.jsonObject(with: queue.body) as? [[String: Any]] ?? []
        #expect(actions.map { $0["kind"] as? String } == ["short", "pick", "pick", "short", "setQty", "close"])
        #expect(actions.allSatisfy { $0["state"] as? String == "sent" })
        // Finishing again queues nothing; a batch never opened here cannot be finished here.
        #expect(try await page.post("/api/batches/\(id)/close", json: [:] as [String: Any]).status == 200)
        let unknown = try await page.post("/api/batches/batch-nope/close", json: [:] as [String: Any])
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "not_found")
        #expect(try await page.post("/api/batches/bad%20id/close", json: [:] as [String: Any]).status == 400)
        let after = try JSONSerialization.jsonObject(with: try await page.get("/api/queue").body) as? [Any]
        #expect(after?.count == actions.count)
        #expect(await station.stop() == 0)
    }

    /// Offline, the taps and the close wait in the queue, in order: once the server is back, the
    /// taps count first and the close last (the other way round they would be refused as closed).
    @Test func aCloseQueuedOfflineGoesAfterTheTapsBeforeIt() async throws {
        let fixture = try await namedFixture()
        let (a1, b3, c2) = (fixture.scenario.tasks[0], fixture.scenario.tasks[1], fixture.scenario.tasks[2])
        let id = fixture.scenario.batchId
        try await fixture.server.stop()
        for arguments in [
            ["pick", a1, "--qty", "2"], ["short", a1, "--qty", "1", "--reason", "damaged"], ["pick", b3, "--qty", "2"],
        ] {
            let tapped = try await fixture.scanpick(["tap"] + arguments)
            #expect(tapped.status == 0, "\(arguments): \(tapped.standardError)")
        }
        let list = try await fixture.scanpick(["pick-list"])
        #expect(list.standardOutput.hasPrefix("batch \(id) (acme) open "))
        #expect(list.standardOutput.contains("COFFEE ARABICA 1KG"))
        #expect(list.standardOutput.contains("SKU-B3"))  // no name: its SKU
        let closing = try await fixture.scanpick(["batch", "close", id])
        #expect(closing.status == 0, "\(closing.standardError)")
        #expect(closing.standardOutput.contains("queued #4 close \(id) (acme): closed on this station"))
        #expect(closing.standardOutput.contains("after the 3 actions before it"))
        #expect(try await fixture.scanpick(["pick-list"]).standardOutput.hasPrefix("batch \(id) (acme) closed "))
        #expect(try await fixture.scanpick(["tap", "pick", c2]).status == 1)

        try await fixture.server.start()
        let drained = try await fixture.scanpick(["drain"])
        #expect(drained.status == 0, "\(drained.standardOutput)")
        #expect(drained.standardOutput.contains("drained: 4 sent, 0 dead"))
        let batch = try await fixture.acme.get("/api/batches/\(id)")
        #expect(batch.json["status"] as? String == "closed")
        #expect((batch.json["tasks"] as? [[String: Any]])?.map { $0["qtyPicked"] as? Int } == [2, 2, 0])
        #expect((batch.json["shortages"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["damaged"])
        // Closing it again from the command line reads the server's batch.
        let again = try await fixture.scanpick(["batch", "close", id])
        #expect(again.standardOutput.contains("closed batch \(id) (acme) at "))
        #expect(again.standardOutput.contains("1 unfinished task goes back to the pool"))
        #expect(again.standardOutput.contains("the unit reported short goes back too"))
    }

    @Test func tapShortChecksItsReasonAndQuantity() async throws {
        let fixture = try await namedFixture()
        let a1 = fixture.scenario.tasks[0]
        let queued = try await fixture.scanpick(["tap", "short", a1, "--qty", "1", "--reason", "other", "--json"])
        #expect(queued.status == 0, "\(queued.standardError)")
        #expect(queued.standardOutput.contains(#""label":"short A1 · ×1 other""#))
        for (arguments, message) in [
            (["--qty", "1", "--reason", "lost"], "--reason wants one of not_found, damaged, other, not 'lost'"),
            (["--qty", "1", "--reason", "x\u{1B}[2J"], #"not 'x\u{1B}[2J'"#),
            (["--qty", "0", "--reason", "other"], "--qty wants a whole number from 1 to 100000"),
            (["--reason", "other"], "--qty"),
        ] {
            let refused = try await fixture.scanpick(["tap", "short", a1] + arguments)
            #expect(refused.status == 2, "\(arguments)")
            #expect(refused.standardError.contains(message), "\(refused.standardError)")
        }
        let over = try await fixture.scanpick(["tap", "short", a1, "--qty", "3", "--reason", "other"])
        #expect(over.status == 1)
        #expect(over.standardError.contains("is more than the 2 still to pick"))
        let rows = try await fixture.pickList()
        #expect(rows[a1]?["qtyShort"] as? Int == 1)
    }

    /// Thirty shorts and picks of one unit at once on a task of twenty units, from the page: each is
    /// counted once or refused, picked + short never pass required, and the server agrees (nothing
    /// goes dead).
    @Test func shortsAndPicksAtOnceNeverPassRequired() async throws {
        let fixture = try await StationFixture(bulkQty: 20)
        let z9 = fixture.scenario.tasks[3]
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
            for index in 0..<30 {
                let kind = index.isMultiple(of: 2) ? "pick" : "short"
                group.addTask {
                    var body: [String: Any] = ["pickTaskId": z9, "kind": kind, "qty": 1]
                    if kind == "short" { body["reason"] = "not_found" }
                    return (kind, try await page.post("/api/taps", json: body).status)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { [200, 422].contains($0.1) }, "\(statuses)")
        let picks = statuses.filter { $0 == ("pick", 200) }.count
        let shorts = statuses.filter { $0 == ("short", 200) }.count
        #expect(picks + shorts == 20)
        let row = try await fixture.pickList()[z9] ?? [:]
        #expect(row["qtyPicked"] as? Int == picks)
        #expect(row["qtyShort"] as? Int == shorts)
        #expect(
            try await eventually {
                let status = try await page.get("/api/status").json
                return status["pending"] as? Int == 0 && status["inFlight"] as? Int == 0
            })
        #expect(try await page.get("/api/status").json["dead"] as? Int == 0)
        let server = try await serverTask(fixture, z9)
        #expect(server["qtyPicked"] as? Int == picks)
        #expect(server["qtyShort"] as? Int == shorts)
        #expect(await station.stop() == 0)
    }
}
