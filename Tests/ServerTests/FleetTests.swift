import Foundation
import TestSupport
import Testing
import Timestamps

/// Station heartbeats and the fleet view on a real `scanpick serve`: what `POST
/// /api/stations/heartbeat` keeps, the status `GET /api/stations` derives from it, and what a
/// station name may be (`X-ScanPick-Station`).
@Suite struct FleetTests {
    /// A heartbeat as a station sends it, with `changes` applied.
    static func heartbeat(_ station: String, _ changes: [String: Any] = [:]) -> [String: Any] {
        var body: [String: Any] = [
            "station": station, "heartbeatSeconds": 30, "version": "0.1.0", "online": true, "pending": 0,
            "inFlight": 0, "dead": 0, "camera": "off", "scanners": 0, "attention": [],
        ]
        body.merge(changes) { _, new in new }
        return body
    }

    static func send(_ client: APIClient, _ body: [String: Any], headers: [String: String]? = nil) async throws
        -> APIClient.Reply
    {
        let station = body["station"] as? String ?? ""
        return try await client.post(
            "/api/stations/heartbeat", json: body, headers: headers ?? ["X-ScanPick-Station": station])
    }

    /// `GET /api/stations`'s stations by name.
    static func stations(_ client: APIClient) async throws -> [String: [String: Any]] {
        let reply = try await client.get("/api/stations")
        #expect(reply.status == 200, "\(reply.text)")
        var byName: [String: [String: Any]] = [:]
        for station in reply.json["stations"] as? [[String: Any]] ?? [] {
            if let name = station["station"] as? String { byName[name] = station }
        }
        return byName
    }

    /// A leap second in a heartbeat is a time (read as the second before it), and what the fleet
    /// view hands on is a time every reader parses; a time without a zone is refused.
    @Test(arguments: ServerStoreKind.allCases)
    func aLeapSecondInAHeartbeatIsTakenAsTheSecondBeforeIt(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let leap = Self.heartbeat(
            "st-leap",
            ["pending": 1, "oldestPendingAt": "2016-12-31T23:59:60.250Z", "lastSyncAt": "2016-12-31T23:59:60Z"])
        let reply = try await Self.send(acme, leap)
        #expect(reply.status == 200, "\(reply.text)")
        let station = try await Self.stations(acme)["st-leap"]
        #expect(station?["oldestPendingAt"] as? String == "2016-12-31T23:59:59.250Z", "\(station ?? [:])")
        #expect(station?["lastSyncAt"] as? String == "2016-12-31T23:59:59.000Z", "\(station ?? [:])")
        for bad in ["2026-10-26T18:17:36", "2026-10-26"] {
            let refused = try await Self.send(acme, Self.heartbeat("st-leap", ["pending": 1, "oldestPendingAt": bad]))
            #expect(refused.status == 400, "\(bad)")
            #expect(refused.errorCode == "invalid_field", "\(bad)")
        }
    }

    @Test(arguments: ServerStoreKind.allCases)
    func eachStationsStatusIsDerivedFromItsLastHeartbeat(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let globex = APIClient(server.baseURL, token: ServerProcess.tokens["globex"])
        let twentyMinutesAgo = Timestamp.iso8601(Date().addingTimeInterval(-20 * 60))
        let aMinuteAgo = Timestamp.iso8601(Date().addingTimeInterval(-60))
        let sent = [
            Self.heartbeat(
                "st-ok", ["pending": 1, "oldestPendingAt": aMinuteAgo, "batchId": "b-1", "workerId": "w-7"]),
            Self.heartbeat("st-dead", ["dead": 1, "pending": 3, "oldestPendingAt": twentyMinutesAgo]),
            Self.heartbeat("st-backlog", ["pending": 2, "oldestPendingAt": twentyMinutesAgo]),
            Self.heartbeat("st-camera", ["camera": "missing"]),
            Self.heartbeat(
                "st-paused", ["attention": [["code": "queue_paused", "message": "the server refused the token"]]]),
            Self.heartbeat("st-quiet", ["heartbeatSeconds": 1]),
        ]
        for body in sent {
            let reply = try await Self.send(acme, body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Timestamp.date(reply.json["receivedAt"] as? String ?? "") != nil)
        }
        // A station's clock an hour fast: its oldest pending minute is judged on the server's clock.
        let fast = Date().addingTimeInterval(3600)
        #expect(
            try await Self.send(
                acme, Self.heartbeat("st-fast", ["pending": 1, "oldestPendingAt": Timestamp.iso8601(fast)]),
                headers: ["X-ScanPick-Station": "st-fast", "X-ScanPick-Clock": Timestamp.iso8601(fast)]
            ).status == 200)

        var stations = try await Self.stations(acme)
        #expect(stations["st-ok"]?["status"] as? String == "ok")
        #expect(stations["st-ok"]?["batchId"] as? String == "b-1")
        #expect(stations["st-ok"]?["workerId"] as? String == "w-7")
        #expect(stations["st-ok"]?["pending"] as? Int == 1)
        #expect(Timestamp.date(stations["st-ok"]?["lastSeenAt"] as? String ?? "") != nil)
        // Worst first: dead letters outrank the backlog, which is listed too.
        #expect(stations["st-dead"]?["status"] as? String == "dead_letters")
        #expect(stations["st-dead"]?["problems"] as? [String] == ["dead_letters", "backlog"])
        #expect(stations["st-backlog"]?["status"] as? String == "backlog")
        #expect(stations["st-camera"]?["status"] as? String == "attention")
        #expect(stations["st-paused"]?["status"] as? String == "attention")
        #expect(stations["st-fast"]?["problems"] as? [String] == ["attention"])  // its clock, not a backlog
        #expect(abs((stations["st-fast"]?["clockOffsetSeconds"] as? Double ?? 0) - 3600) < 30)
        // Another organisation sees none of them.
        #expect(try await Self.stations(globex).isEmpty)

        // Three missed one-second heartbeats make a station stale; its next heartbeat makes it ok.
        #expect(try await eventually { try await Self.stations(acme)["st-quiet"]?["status"] as? String == "stale" })
        let seen = try #require(Timestamp.date(stations["st-quiet"]?["lastSeenAt"] as? String ?? ""))
        #expect(Date().timeIntervalSince(seen) > 3)
        // (Back with a 30 s interval, so a loaded machine's slow GET cannot make it stale again.)
        #expect(try await Self.send(acme, Self.heartbeat("st-quiet")).status == 200)
        stations = try await Self.stations(acme)
        #expect(stations["st-quiet"]?["status"] as? String == "ok")
        #expect(stations.count == 7)  // the same station again is replaced, not added
    }

    /// What a token holder sends to make the server keep more than it should, or to smuggle
    /// something into its logs, metrics or SQL through a station's name.
    @Test func badHeartbeatsAndStationNamesAreRefusedAndTheNumberOfStationsIsBounded() async throws {
        let server = try await ServerProcess(extraConfig: ["maxStationsPerOrganisation": 3])
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        // On the wire as sent (URLSession would clean some of these up): every route refuses them.
        for name in ["", "two words", "tab\tname", String(repeating: "x", count: 65), "é", "a\u{202E}b"] {
            for (method, path) in [("GET", "/api/stations"), ("POST", "/api/picking/pick"), ("GET", "/health")] {
                let request =
                    "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(ServerProcess.tokens["acme"] ?? "")\r\n"
                    + "X-ScanPick-Station: \(name)\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                    + "Connection: close\r\n\r\n{}"
                let reply = try RawConnection(port: server.port).exchange(request).0
                #expect(reply?.status == 400, "\(name.debugDescription) \(path)")
                #expect(reply?.json["error"] as? String == "invalid_station", "\(name.debugDescription) \(path)")
            }
            let beat = try await Self.send(acme, Self.heartbeat(name), headers: [:])
            #expect(beat.status == 422 || beat.status == 400, "\(name.debugDescription): \(beat.text)")
        }
        #expect(try await Self.send(acme, Self.heartbeat(String(repeating: "x", count: 64))).status == 200)
        // The header and the body must name the same station.
        let mismatch = try await Self.send(acme, Self.heartbeat("st-1"), headers: ["X-ScanPick-Station": "st-2"])
        #expect(mismatch.status == 400)
        // Every field is bounded.
        for change: [String: Any] in [
            ["heartbeatSeconds": 0], ["heartbeatSeconds": 3601], ["pending": -1], ["dead": 1_000_000_001],
            ["camera": "broken"], ["scanners": 65], ["oldestPendingAt": "yesterday"], ["version": ""],
            ["attention": Array(repeating: ["code": "c", "message": "m"], count: 11)],
            ["attention": [["code": "c", "message": String(repeating: "m", count: 301)]]],
        ] {
            let reply = try await Self.send(acme, Self.heartbeat("st-1", change))
            #expect(reply.status == 422 || reply.status == 400, "\(change): \(reply.text)")
        }
        let huge = Data(repeating: UInt8(ascii: " "), count: 40_000) + Data("{}".utf8)
        let tooLarge = try await acme.send("POST", "/api/stations/heartbeat", body: huge)
        #expect(tooLarge.status == 413)
        #expect(try await Self.stations(acme).count == 1)

        // Three stations at most: a fourth new one is refused, the known ones keep reporting.
        for name in ["st-1", "st-2"] { #expect(try await Self.send(acme, Self.heartbeat(name)).status == 200) }
        let fourth = try await Self.send(acme, Self.heartbeat("st-4"))
        #expect(fourth.status == 422 && fourth.errorCode == "too_many_stations", "\(fourth.text)")
        #expect(try await Self.send(acme, Self.heartbeat("st-2", ["dead": 1])).status == 200)
        // Support removes a retired one, and there is room again.
        #expect(try await acme.send("DELETE", "/api/stations/st-1", body: nil).status == 200)
        #expect(try await acme.send("DELETE", "/api/stations/st-1", body: nil).status == 404)
        #expect(try await Self.send(acme, Self.heartbeat("st-4")).status == 200)
        #expect(Set(try await Self.stations(acme).keys) == [String(repeating: "x", count: 64), "st-2", "st-4"])
        // A slash encoded in the path stays in its segment: "st-2%2F" is no station, never st-2, and a
        // station whose name has a slash can be removed.
        #expect(try await acme.send("DELETE", "/api/stations/st-2%2F", body: nil, encoded: true).status == 404)
        #expect(try await acme.send("DELETE", "/api/stations/st-4", body: nil).status == 200)
        #expect(try await Self.send(acme, Self.heartbeat("st/4")).status == 200)
        #expect(try await acme.send("DELETE", "/api/stations/st%2F4", body: nil, encoded: true).status == 200)
        #expect(Set(try await Self.stations(acme).keys) == [String(repeating: "x", count: 64), "st-2"])
        #expect(try await APIClient(server.baseURL, token: nil).get("/api/stations").status == 401)
        #expect(server.isRunning)
    }

    /// The station named in `X-ScanPick-Station` is recorded with the event and the idempotency key
    /// of its request, and in the request's log line, on either store.
    @Test(arguments: ServerStoreKind.allCases)
    func theSendingStationIsRecordedWithEventsAndKeys(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let reply = try await fixture.acme.post(
            "/api/picking/pick",
            json: [
                "pickTaskId": fixture.tasks[0], "qty": 1, "workerId": "w", "at": fixture.at, "idempotencyKey": "k-1",
            ],
            headers: ["X-ScanPick-Station": "dock-7"])
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try await fixture.pick(fixture.tasks[1], qty: 1).status == 200)  // no header: no station
        let (events, keys) = try fixture.server.read { db in
            (
                try db.rows("SELECT station FROM events ORDER BY seq", []).map { try $0.optionalString("station") },
                try db.rows("SELECT station FROM idempotency_keys WHERE key = 'k-1'", []).map {
                    try $0.optionalString("station")
                }
            )
        }
        #expect(events == ["dock-7", nil])
        #expect(keys == ["dock-7"])
        #expect(
            await eventually {
                fixture.server.log.split(separator: "\n").contains {
                    $0.contains(#""path":"/api/picking/pick""#) && $0.contains(#""station":"dock-7""#)
                }
            })
    }
}
