import Foundation
import TestSupport
import Testing
import Wire

@testable import Station

/// A tap or scan the station counted, refused by the server when it was sent: the picker is told
/// what to do until they acknowledge it, through restarts, and support's dead letter is untouched.
@Suite struct LaterRefusalTests {
    /// Another station picks C2's one unit on the server while this station's pick of it waits in
    /// the queue: sent, it is refused (over-pick) and goes dead. Returns the dead letter's id.
    func refusedPick(_ fixture: StationFixture) async throws -> Int {
        let c2 = fixture.scenario.tasks[2]
        #expect(try await fixture.scanpick(["tap", "pick", c2]).status == 0)
        let other = try await fixture.acme.post(
            "/api/picking/pick",
            json: [
                "pickTaskId": c2, "qty": 1, "idempotencyKey": UUID().uuidString.lowercased(), "workerId": "w-other",
                "at": ISO8601DateFormatter().string(from: Date()),
            ])
        #expect(other.status == 200, "\(other.text)")
        #expect(try await fixture.scanpick(["drain"]).status == 0)
        let queue = try await fixture.scanpick(["queue", "--json"])
        let dead = (try JSONSerialization.jsonObject(with: Data(queue.standardOutput.utf8)) as? [[String: Any]])?
            .first { $0["state"] as? String == "dead" }
        return try #require(dead?["id"] as? Int)
    }

    func refusals(_ page: APIClient) async throws -> [[String: Any]] {
        try await page.get("/api/pick-list").json["refusals"] as? [[String: Any]] ?? []
    }

    @Test func aLaterRefusalIsShownUntilThePickerAcknowledgesIt() async throws {
        let fixture = try await StationFixture(stationConfig: ["workers": [["id": "w-ana", "name": "Ana"]]])
        let id = try await refusedPick(fixture)
        // The command line's pick list says it too (the same shape).
        let listed = try await fixture.scanpick(["pick-list", "--json"])
        let shown = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any])?["refusals"]
                as? [[String: Any]])
        #expect(shown.count == 1)
        #expect(shown.first?["id"] as? Int == id)
        #expect(shown.first?["units"] as? Int == 1)
        #expect(shown.first?["kind"] as? String == "pick")
        #expect(shown.first?["message"] as? String == "Put back 1 × SKU-C2 at C2 — another station picked the last one")

        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        #expect(try await refusals(page).map { $0["id"] as? Int } == [id])
        #expect(try await page.post("/api/sign-in", json: ["workerId": "w-ana"]).status == 200)
        let acknowledged = try await page.post("/api/refusals/\(id)/acknowledge", json: [:] as [String: Any])
        #expect(acknowledged.status == 200)
        #expect((acknowledged.json["refusals"] as? [[String: Any]])?.isEmpty == true)
        let again = try await page.post("/api/refusals/\(id)/acknowledge", json: [:] as [String: Any])
        #expect(again.status == 404)
        #expect(again.errorCode == "no_such_refusal")
        #expect(try await page.post("/api/refusals/x/acknowledge", json: [:] as [String: Any]).status == 404)
        // Support's dead letter stays for support, and its row stays marked.
        let row = try await fixture.pickList()[fixture.scenario.tasks[2]]
        #expect(row?["refused"] as? Bool == true)
        #expect(await station.stop() == 0)
        let line = station.logLines.first { $0["event"] as? String == "refusal_acknowledged" }
        #expect(line?["actionId"] as? Int == id)
        #expect(line?["worker"] as? String == "w-ana")

        // Put back in line by support and refused again: a new refusal, shown again.
        #expect(try await fixture.scanpick(["queue", "retry", "\(id)", "--by", "support-jo"]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 0)
        let restarted = try await StationProcess(config: fixture.config)
        #expect(try await refusals(APIClient(restarted.page, token: nil)).map { $0["id"] as? Int } == [id])
        #expect(await restarted.stop() == 0)
    }

    /// Only the server's refusals are the picker's: a parked action (support's doing) is not.
    @Test func aParkedActionIsNotARefusal() async throws {
        let fixture = try await StationFixture()
        try fixture.setAcmeToken("not-acme's-token")
        #expect(try await fixture.scanpick(["tap", "pick", fixture.scenario.tasks[0]]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 3)  // paused, pending
        let queue = try await fixture.scanpick(["queue", "--json"])
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(queue.standardOutput.utf8)) as? [[String: Any]])?.first?["id"]
                as? Int)
        #expect(try await fixture.scanpick(["queue", "park", "\(id)", "--by", "support-jo"]).status == 0)
        let listed = try await fixture.scanpick(["pick-list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any]
        #expect((object?["refusals"] as? [[String: Any]])?.isEmpty == true)
    }

    @Test func whatThePickerIsToldNamesTheProductAndTheLocation() {
        let task = PickTask(
            id: "t1", batchId: "b", orderId: "o", lineId: "l", sku: "COF-1KG", location: "A-03-03-A",
            barcode: "036000291452", qtyRequired: 3, qtyPicked: 0, qtyLocked: 0, caseGtin: "10036000291459",
            caseQty: 12, name: "COFFEE ARABICA 1KG")
        #expect(PickerRefusals.serverCode("over_pick: picking 1 more …") == "over_pick")
        #expect(PickerRefusals.serverCode("parked by jo while the queue waited (unauthorized): …") == nil)
        #expect(PickerRefusals.serverCode("no colon") == nil)
        #expect(PickerRefusals.units(kind: "scan", payload: ["barcode": "10036000291459"], task: task) == 12)
        #expect(PickerRefusals.units(kind: "scan", payload: ["barcode": "036000291452"], task: task) == 1)
        #expect(PickerRefusals.units(kind: "pick", payload: ["qty": 2], task: task) == 2)
        #expect(
            PickerRefusals.message(kind: "scan", code: "over_pick", units: 1, payload: [:], task: task)
                == "Put back 1 × COFFEE ARABICA 1KG at A-03-03-A — another station picked the last one")
        #expect(
            PickerRefusals.message(kind: "setQty", code: "locked_by_shipment", units: 0, payload: ["to": 1], task: task)
                == "The count of COFFEE ARABICA 1KG at A-03-03-A was not set to 1: some units are already in a box. Count the tote again"
        )
        for code in ["batch_closed", "not_found", "lot_mismatch", "expired", "too_old_to_deduplicate", "other_code"] {
            let message = PickerRefusals.message(kind: "pick", code: code, units: 2, payload: [:], task: task)
            #expect(message.contains("2 × COFFEE ARABICA 1KG at A-03-03-A") && !message.contains("_"), "\(message)")
        }
    }
}
