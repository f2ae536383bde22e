import Foundation
import TestSupport
import Testing

/// A running station whose server fails one action every time: the page's pill names it, its
/// heartbeat carries it to the fleet view, and support parks it from the page's Diagnostics route.
@Suite struct StuckActionStationTests {
    @Test func aStuckActionIsShownSentInTheHeartbeatAndParkedFromThePage() async throws {
        let fixture = try await StationFixture(
            viaProxy: true, bulkQty: 1000,
            stationConfig: [
                "station": "st-stuck", "heartbeatSeconds": 1, "support": StationFixture.support,
                // 0.6 s and five tries 0.1–0.2 s apart: stuck within seconds, on the real clock.
                "queue": [
                    "requestTimeoutSeconds": 2, "backoffInitialSeconds": 0.1, "backoffCapSeconds": 0.2,
                    "stuckAfterMinutes": 0.01,
                ],
            ])
        let proxy = try #require(fixture.proxy)
        let (a1, z9) = (fixture.scenario.tasks[0], fixture.scenario.tasks[3])
        for (task, index) in [(a1, 0), (z9, 1), (z9, 2)] {
            let tap = try await fixture.scanpick(["tap", "pick", task, "--org", "acme", "--outside-batch"])
            #expect(tap.status == 0, "tap \(index): \(tap.standardError)")
        }
        let listed = try await fixture.scanpick(["queue", "--json"])
        let queued = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        let key = try #require(queued.first?["idempotencyKey"] as? String)
        let first = try #require(queued.first?["id"] as? Int)
        proxy.answer(key: key, with: .status(500))

        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        func stuck() async throws -> String? {
            let attention = try await page.get("/api/status").json["attention"] as? [[String: Any]] ?? []
            return attention.first { $0["code"] as? String == "action_stuck" }?["message"] as? String
        }
        #expect(try await eventually { try await stuck() != nil })
        let message = try #require(try await stuck())
        #expect(message.hasPrefix("#\(first) pick A1 · ×1: the server answered 500 for "), "\(message)")
        #expect(message.contains("the 2 actions behind it wait"), "\(message)")

        // The heartbeat names it for the fleet view.
        func fleetStuck() async throws -> [String: Any]? {
            let stations = try await fixture.acme.get("/api/stations").json["stations"] as? [[String: Any]] ?? []
            return stations.first { $0["station"] as? String == "st-stuck" }?["stuck"] as? [String: Any]
        }
        #expect(try await eventually { try await fleetStuck() != nil })
        let shown = try #require(try await fleetStuck())
        #expect(shown["actionId"] as? Int == first)
        #expect(shown["label"] as? String == "pick A1 · ×1")
        #expect(shown["lastStatus"] as? Int == 500)
        #expect(shown["behind"] as? Int == 2)
        #expect((shown["tries"] as? Int ?? 0) >= 5)

        // Diagnostics: park it. A support sign-in is required; the two behind it go through; it keeps its key.
        #expect(try await page.post("/api/queue/\(first)/park", json: ["by": "support-jo"]).status == 403)
        let signIn = try await page.post("/api/support/sign-in", json: ["badge": "SUP-jo"])
        let session = try #require(signIn.json["session"] as? String)
        // A try in flight at that moment is refused 409 ("being sent right now"): park after it.
        var parked = try await page.post("/api/queue/\(first)/park", json: ["session": session])
        _ = try await eventually {
            guard parked.status == 409 else { return true }
            parked = try await page.post("/api/queue/\(first)/park", json: ["session": session])
            return parked.status != 409
        }
        #expect(parked.status == 200, "\(parked.text)")
        let newId = try #require(parked.json["newId"] as? Int)
        #expect(newId > first + 2)
        #expect(try await eventually { try await fixture.scenario.picked(on: fixture.acme)[z9] == 2 })
        let after = try await fixture.scanpick(["queue", "--json"])
        let rows = try #require(
            try JSONSerialization.jsonObject(with: Data(after.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.first { $0["id"] as? Int == newId }?["idempotencyKey"] as? String == key)
        let state = rows.first { $0["id"] as? Int == newId }?["state"] as? String
        #expect(state == "pending" || state == "inFlight")  // still tried, now and then

        proxy.answer(key: key, with: nil)
        #expect(try await eventually { try await fixture.scenario.picked(on: fixture.acme)[a1] == 1 })
        #expect(await station.stop() == 0)
    }
}
