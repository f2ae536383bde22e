import Foundation
import SQLiteStorage
import TestSupport
import Testing
import Timestamps

/// What a real station tells the shift lead through its heartbeats: who picks (by name), how far the
/// batch is, when the last scan or tap was, and a call for help made on its page ("Call lead"),
/// which the lead clears from the fleet page and the station then ends by itself.
@Suite struct CallLeadTests {
    /// The station as the server lists it.
    static func listed(_ fixture: StationFixture, _ name: String) async throws -> [String: Any]? {
        let stations = try await fixture.acme.get("/api/stations").json["stations"] as? [[String: Any]] ?? []
        return stations.first { $0["station"] as? String == name }
    }

    @Test func theLeadSeesThePickerByNameTheBatchAndACallForHelpUntilCleared() async throws {
        let fixture = try await StationFixture(stationConfig: [
            "station": "st-lead", "heartbeatSeconds": 3600, "worker": "w-1",
            "workers": [["id": "w-1", "name": "Bo Chen"], ["id": "w-7", "name": "Ana <b>Lima</b>"]],
        ])
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        // The first heartbeat: the config's worker, by the name the config gives, no action yet,
        // nothing done of the batch's three lines.
        #expect(try await eventually { try await Self.listed(fixture, "st-lead") != nil })
        var shown = try #require(try await Self.listed(fixture, "st-lead"))
        #expect(shown["workerId"] as? String == "w-1")
        #expect(shown["workerName"] as? String == "Bo Chen")
        #expect(shown["lastActionAt"] is NSNull)
        #expect((shown["batchProgress"] as? [String: Any])?["total"] as? Int == 3)
        #expect((shown["batchProgress"] as? [String: Any])?["done"] as? Int == 0)
        #expect(shown["help"] is NSNull)

        // Ana signs in and finishes C2 (one unit); then she calls the lead. With a heartbeat only
        // every hour, the call still reaches the server: a call made or cancelled goes at once.
        #expect(try await page.post("/api/sign-in", json: ["workerId": "w-7"]).status == 200)
        let c2 = fixture.scenario.tasks[2]
        #expect(try await page.post("/api/taps", json: ["pickTaskId": c2, "kind": "pick", "qty": 1]).status == 200)
        let calledAt = Date()
        let called = try await page.post("/api/help", json: [:] as [String: Any])
        #expect(called.status == 200, "\(called.text)")
        let help = try #require(called.json["help"] as? [String: Any])
        #expect(help["by"] as? String == "Ana <b>Lima</b>")
        let since = try #require(help["since"] as? String)
        // A second tap is the same call, not a newer one.
        let again = try await page.post("/api/help", json: [:] as [String: Any])
        #expect((again.json["help"] as? [String: Any])?["since"] as? String == since)
        #expect(
            try await eventually { try await Self.listed(fixture, "st-lead")?["status"] as? String == "help" })
        shown = try #require(try await Self.listed(fixture, "st-lead"))
        #expect(shown["workerId"] as? String == "w-7")
        #expect(shown["workerName"] as? String == "Ana <b>Lima</b>")
        #expect((shown["help"] as? [String: Any])?["since"] as? String == since)
        #expect((shown["batchProgress"] as? [String: Any])?["done"] as? Int == 1)
        let lastAction = try #require(Timestamp.date(shown["lastActionAt"] as? String ?? ""))
        #expect(abs(lastAction.timeIntervalSince(calledAt)) < 30)

        // The picker cancels: gone from the fleet within seconds; then calls again.
        #expect(try await page.post("/api/help/cancel", json: [:] as [String: Any]).json["help"] is NSNull)
        #expect(
            try await eventually { try await Self.listed(fixture, "st-lead")?["help"] is NSNull })
        #expect(await station.stop() == 0)
    }

    /// The lead clears the call on the fleet page: the station hears so in its next heartbeat's
    /// answer and ends the call, so its page shows "Call lead" again and the lead sees no call.
    @Test func aCallTheLeadClearsEndsOnTheStation() async throws {
        let fixture = try await StationFixture(stationConfig: ["station": "st-clear", "heartbeatSeconds": 1])
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let called = try await page.post("/api/help", json: [:] as [String: Any])
        let since = try #require((called.json["help"] as? [String: Any])?["since"] as? String)
        #expect((called.json["help"] as? [String: Any])?["by"] as? String == "worker-test")  // no name known
        #expect(
            try await eventually { try await Self.listed(fixture, "st-clear")?["status"] as? String == "help" })
        let cleared = try await fixture.acme.post("/api/stations/st-clear/help/clear", json: ["since": since])
        #expect(cleared.json["cleared"] as? Bool == true, "\(cleared.text)")
        #expect(try await eventually { try await page.get("/api/help").json["help"] is NSNull })
        // Its later heartbeats carry no call, and the server forgets the clearing.
        #expect(
            try await eventually {
                let db = try Database(path: fixture.server.database)
                return try db.row("SELECT help_cleared_since FROM station_heartbeats WHERE station = 'st-clear'", [])?
                    .optionalString("help_cleared_since") == nil
            })
        #expect(try await Self.listed(fixture, "st-clear")?["help"] is NSNull)
        #expect(await station.stop() == 0)
    }
}
