import Foundation
import TestSupport
import Testing
import Timestamps

/// Taps through the pick list, refresh that never clobbers, and the interlock on the station,
/// against a real server (and a fault proxy to catch a drain mid-flight).
@Suite struct RefreshAndTapTests {
    @Test func aRefreshNeverErasesTapsQueuedOrInFlight() async throws {
        let fixture = try await StationFixture(viaProxy: true)
        let proxy = try #require(fixture.proxy)
        let (a1, b3) = (fixture.scenario.tasks[0], fixture.scenario.tasks[1])
        #expect(try await fixture.scanpick(["tap", "pick", a1, "--org", "acme"]).status == 0)

        // A drain is mid-flight: the server commits A1's pick, its answer is held back.
        proxy.script([.holdAnswer(seconds: 4)])
        let drain = try ChildProcess(ProcessRunner.scanpick, ["drain", "--once", "--config", fixture.config])
        for _ in 0..<100 where !proxy.log.contains(where: { $0.hasPrefix("POST /api/picking/pick") }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        // Meanwhile another station picks A1 too, and this picker taps B3 (queued, not sent).
        _ = try await fixture.acme.post(
            "/api/picking/pick",
            json: [
                "pickTaskId": a1, "qty": 1, "idempotencyKey": "other-station", "workerId": "w2",
                "at": Timestamp.iso8601(),
            ])
        #expect(try await fixture.scanpick(["tap", "pick", b3, "--org", "acme"]).status == 0)

        // The server's view arrives now: A1 = 2, B3 = 0. Neither row may be overwritten.
        let refresh = try await fixture.scanpick(["batch", "refresh"])
        #expect(refresh.status == 0, "\(refresh.standardOutput)\(refresh.standardError)")
        var rows = try await fixture.pickList()
        #expect(rows[a1]?["qtyPicked"] as? Int == 1)
        #expect(rows[a1]?["pending"] as? Bool == true)
        #expect(rows[b3]?["qtyPicked"] as? Int == 1)
        #expect(rows[b3]?["pending"] as? Bool == true)

        // Once everything is confirmed sent, the next refresh shows the server's truth.
        drain.waitUntilExit()
        #expect(try await fixture.scanpick(["drain"]).status == 0)
        #expect(try await fixture.scanpick(["batch", "refresh"]).status == 0)
        rows = try await fixture.pickList()
        #expect(rows[a1]?["qtyPicked"] as? Int == 2)
        #expect(rows[a1]?["pending"] as? Bool == false)
        #expect(rows[b3]?["qtyPicked"] as? Int == 1)
        #expect(rows[b3]?["pending"] as? Bool == false)
        #expect(try await fixture.picked() == [2, 1, 0])
    }

    /// A refresh of the open batch that is still on its way when the picker opens another batch
    /// updates its rows only: it never makes its batch the open one again.
    @Test func aRefreshInFlightNeverUndoesABatchSwitch() async throws {
        let fixture = try await StationFixture(viaProxy: true)
        let proxy = try #require(fixture.proxy)
        try fixture.rewriteConfig { settings in settings["queue"] = ["requestTimeoutSeconds": 60] }
        let upserted = try await fixture.acme.upsertOrder(
            "o9", carrier: "UPS", zone: "B", shipBy: "2026-12-04",
            line: ["id": "l1", "sku": "SKU-D4", "location": "D4", "barcode": "4006381333931", "qty": 2])
        #expect(upserted.status == 200)
        let second = try await fixture.acme.post("/api/batches", json: ["filters": ["carrier": "UPS"]])
        let b2 = try #require(second.json["id"] as? String)
        let d4 = try #require((second.json["tasks"] as? [[String: Any]])?.first?["id"] as? String)

        // The running station's refresh of the first batch reaches the server; its answer is held.
        let firstBatch = "/api/batches/\(fixture.scenario.batchId)"
        proxy.holdAnswers(to: firstBatch)
        let station = try await StationProcess(config: fixture.config)
        #expect(await eventually { proxy.heldAnswers == 1 })

        // Meanwhile the picker opens the second batch; then the first one's view arrives.
        let opened = try await fixture.scanpick(["batch", "open", b2, "--org", "acme"])
        #expect(opened.status == 0, "\(opened.standardError)")
        let refreshes = { proxy.log.filter { $0.hasPrefix("GET /api/batches/") } }
        let before = refreshes().count
        proxy.releaseHeldAnswers()

        // A tap makes the next pass and refresh: they are of the second batch, still the open one.
        let page = APIClient(station.page, token: nil)
        let tap = try await page.post("/api/taps", json: ["pickTaskId": d4, "kind": "pick", "qty": 1])
        #expect(tap.status == 200, "\(tap.text)")
        #expect(await eventually { refreshes().count > before })
        #expect(refreshes().last?.hasPrefix("GET /api/batches/\(b2) ") == true, "\(refreshes())")
        let listed = try await fixture.scanpick(["pick-list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any]
        #expect(object?["batchId"] as? String == b2)
        #expect(await station.stop() == 0)
    }

    @Test func unitsInABoxAreLockedOnTheStationUntilTheLabelIsVoided() async throws {
        let fixture = try await StationFixture()
        let a1 = fixture.scenario.tasks[0]
        #expect(try await fixture.scanpick(["tap", "pick", a1, "--org", "acme", "--qty", "3"]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 0)
        let shipment = try await fixture.acme.post(
            "/api/shipments",
            json: [
                "orderId": "o1", "units": [["pickTaskId": a1, "qty": 2]], "idempotencyKey": "box-1",
                "at": Timestamp.iso8601(),
            ])
        let shipmentId = try #require(shipment.json["id"] as? String)
        #expect(try await fixture.scanpick(["batch", "refresh"]).status == 0)
        #expect(try await fixture.pickList()[a1]?["qtyLocked"] as? Int == 2)

        let refused = try await fixture.scanpick(["tap", "qty", a1, "--org", "acme", "--from", "3", "--to", "1"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("2 units of SKU-A1 at A1 are already in a box"))
        let queued = try await fixture.scanpick(["queue", "--json"]).standardOutput
        #expect(queued.components(separatedBy: "\"kind\"").count - 1 == 1)

        _ = try await fixture.acme.post(
            "/api/shipments/\(shipmentId)/void", json: ["idempotencyKey": "void-1", "at": Timestamp.iso8601()])
        #expect(try await fixture.scanpick(["batch", "refresh"]).status == 0)
        #expect(try await fixture.pickList()[a1]?["qtyLocked"] as? Int == 0)
        #expect(
            try await fixture.scanpick(["tap", "qty", a1, "--org", "acme", "--from", "3", "--to", "1"]).status == 0)
        #expect(try await fixture.pickList()[a1]?["qtyPicked"] as? Int == 1)
    }

    @Test func batchCreateResolvesFiltersOnTheServerAndOpensTheBatch() async throws {
        let fixture = try await StationFixture()
        _ = try await fixture.acme.upsertOrder(
            "o9", carrier: "UPS", zone: "B", shipBy: "2026-12-05",
            line: ["id": "l1", "sku": "SKU-D4", "location": "D4", "barcode": "4006381333931", "qty": 4])
        let unknown = try await fixture.scanpick(["batch", "create", "--org", "acme", "--filter", "colour=red"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("unknown filter 'colour'"))

        // A second carrier would replace the first (the filters must all match): refused. Order ids
        // add up (were the last kept alone, `nope` would leave nothing to batch).
        let twice = try await fixture.scanpick([
            "batch", "create", "--org", "acme", "--filter", "carrier=DHL", "--filter", "carrier=UPS",
        ])
        #expect(twice.status == 2)
        #expect(twice.standardError.contains("--filter carrier is given twice ('DHL' and 'UPS')"), "\(twice)")
        let created = try await fixture.scanpick([
            "batch", "create", "--org", "acme", "--filter", "carrier=UPS", "--filter", "orderIds=o9",
            "--filter", "orderIds=nope",
        ])
        #expect(created.status == 0, "\(created)")
        #expect(created.standardOutput.contains("created and opened batch"))
        #expect(created.standardOutput.contains("active: D4  SKU-D4  4006381333931  0/4"))
        let rows = try await fixture.pickList()
        #expect(rows.count == 1)
        #expect(rows.values.first?["location"] as? String == "D4")

        // Every UPS line is now in an open batch: the server's refusal is shown as it gave it.
        let again = try await fixture.scanpick(["batch", "create", "--org", "acme", "--filter", "carrier=UPS"])
        #expect(again.status == 1)
        #expect(again.standardError.contains("422"))

        try await fixture.server.stop()
        let offline = try await fixture.scanpick(["batch", "create", "--org", "acme", "--filter", "zone=B"])
        #expect(offline.status == 1)
        #expect(offline.standardError.contains("Creating a batch needs the server"))
        #expect(try await fixture.pickList().count == 1)  // the open batch is untouched
    }

    @Test func anOfflineTapFlipsItsRowAtOnce() async throws {
        let fixture = try await StationFixture()
        let b3 = fixture.scenario.tasks[1]
        try await fixture.server.stop()
        let tap = try await fixture.scanpick(["tap", "pick", b3, "--org", "acme"])
        #expect(tap.status == 0)
        #expect(tap.standardOutput.contains("pick B3 · ×1"))
        let row = try await #require(try fixture.pickList()[b3])
        #expect(row["qtyPicked"] as? Int == 1)
        #expect(row["pending"] as? Bool == true)
        let over = try await fixture.scanpick(["tap", "pick", b3, "--org", "acme", "--qty", "5"])
        #expect(over.status == 1)
        #expect(over.standardError.contains("over the 2 required"))
        #expect(try await fixture.scanpick(["batch", "refresh"]).status == 1)  // offline: says so, changes nothing
        #expect(try await fixture.pickList()[b3]?["qtyPicked"] as? Int == 1)
    }

    @Test func aRowWithARefusedActionStaysMarkedUntilSupportActs() async throws {
        let fixture = try await StationFixture()
        let a1 = fixture.scenario.tasks[0]
        // The order is cut to 1 unit on the server after the batch was opened on the station.
        _ = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: ["id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 1])
        #expect(try await fixture.scanpick(["tap", "pick", a1, "--org", "acme", "--qty", "2"]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 0)  // refused: a dead letter, nothing pending
        var row = try await #require(try fixture.pickList()[a1])
        #expect(row["refused"] as? Bool == true)
        #expect(row["pending"] as? Bool == false)
        let table = try await fixture.scanpick(["pick-list"]).standardOutput
        #expect(table.split(separator: "\n").contains { $0.hasPrefix("▶ !") && $0.contains("A1") }, "\(table)")

        // The next refresh shows the server's count, and the row stays marked.
        #expect(try await fixture.scanpick(["batch", "refresh"]).status == 0)
        row = try await #require(try fixture.pickList()[a1])
        #expect(row["qtyPicked"] as? Int == 0)
        #expect(row["refused"] as? Bool == true)

        // Support clears the dead letter: the mark goes.
        let queue = try await fixture.scanpick(["queue", "--json"]).standardOutput
        let dead = try #require((try JSONSerialization.jsonObject(with: Data(queue.utf8)) as? [[String: Any]])?.first)
        let id = try #require(dead["id"] as? Int)
        #expect(try await fixture.scanpick(["queue", "clear", "\(id)", "--by", "support-jo"]).status == 0)
        #expect(try await fixture.pickList()[a1]?["refused"] as? Bool == false)
    }
}
