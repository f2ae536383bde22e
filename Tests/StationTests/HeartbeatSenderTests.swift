import Foundation
import TestSupport
import Testing

/// A real `scanpick station` behind `FaultProxy`, whose log and bodies show every heartbeat it
/// sent: heartbeats go only while the server answers, and are never queued, so after an outage the
/// server gets the station's state of now, not a backlog of the outage's.
@Suite struct HeartbeatSenderTests {
    static let path = "/api/stations/heartbeat"

    @Test func heartbeatsAreSentOnlyOnlineAndNeverQueued() async throws {
        let fixture = try await StationFixture(
            viaProxy: true, stationConfig: ["station": "st-hb", "heartbeatSeconds": 1])
        let proxy = try #require(fixture.proxy)
        let beats = { proxy.log.filter { $0.hasPrefix("POST \(Self.path) ") }.count }
        let probes = { proxy.log.filter { $0.hasPrefix("GET /health") }.count }
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        #expect(await eventually { beats() >= 2 })  // online: one a second

        // The server is unreachable (everything answers 503, health checks included).
        proxy.answerEverything(with: .status(503, retryAfter: nil))
        #expect(try await eventually { try await page.get("/api/status").json["online"] as? Bool == false })
        // A heartbeat begun before the station saw the outage has arrived by its next probe.
        let seen = probes()
        #expect(await eventually { probes() > seen })
        let (beatsOffline, probesOffline) = (beats(), probes())
        // Until the probe after (5 s, five heartbeat intervals), not one heartbeat is tried.
        #expect(await eventually { probes() > probesOffline })
        #expect(beats() == beatsOffline, "\(proxy.log.suffix(10))")

        // A tap in the outage is the queue's only action: no heartbeat ever entered it.
        let task = fixture.scenario.tasks[0]
        #expect(try await page.post("/api/taps", json: ["pickTaskId": task, "kind": "pick", "qty": 1]).status == 200)
        let listed = try await fixture.scanpick(["queue", "--json"])
        let queue = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(queue.map { $0["kind"] as? String } == ["pick"], "\(listed.standardOutput)")
        let tapQueuedAt = try #require(queue.first?["createdAt"] as? String)

        // The server answers again, but the tap's answer is held: it stays unsent, so every
        // heartbeat of now says one action waits, queued at the tap's time. A backlog of the
        // outage's heartbeats would say none (they were made before the tap), and come at once.
        proxy.holdAnswers(to: "/api/picking/pick")
        let recovered = Date()
        proxy.answerEverything(with: nil)
        func listedByServer() async throws -> [String: Any]? {
            let stations = try await fixture.acme.get("/api/stations").json["stations"] as? [[String: Any]] ?? []
            return stations.first { $0["station"] as? String == "st-hb" }
        }
        #expect(
            try await eventually {
                let shown = try await listedByServer()
                return (shown?["pending"] as? Int ?? 0) + (shown?["inFlight"] as? Int ?? 0) == 1
            })
        // Each heartbeat is due a whole interval after the one before, so since the outage ended
        // there can be at most one per second and one more (whatever the machine's load).
        let elapsed = Date().timeIntervalSince(recovered)
        let after = proxy.bodies("POST", Self.path).dropFirst(beatsOffline)
        #expect(!after.isEmpty)
        #expect(after.count <= Int(elapsed) + 1, "\(after.count) heartbeats in \(elapsed) s")
        for body in after {
            let beat = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            #expect((beat["pending"] as? Int ?? 0) + (beat["inFlight"] as? Int ?? 0) == 1, "\(beat)")
            #expect(beat["oldestPendingAt"] as? String == tapQueuedAt, "\(beat)")
            #expect(beat["online"] as? Bool == true)
        }
        #expect(try await listedByServer()?["oldestPendingAt"] as? String == tapQueuedAt)

        proxy.releaseHeldAnswers()
        #expect(await station.stop() == 0)
    }
}
