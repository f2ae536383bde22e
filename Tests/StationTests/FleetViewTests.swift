import Foundation
import SQLiteStorage
import TestSupport
import Testing

/// Two real stations (each its own process and database) against one real server, as a supervisor
/// sees them through `GET /api/stations` and `scanpick fleet`: one offline for a while with a tap
/// pending, then back with its backlog, then drained; one with a dead letter and its camera missing.
/// Their `/metrics`, read by Prometheus's parser, agree with `scanpick status --json`.
@Suite struct FleetViewTests {
    /// The fleet as `scanpick fleet --json` prints it, by station name.
    static func fleet(_ fixture: StationFixture, tokenFile: String) async throws -> [String: [String: Any]] {
        let result = try await ProcessRunner.scanpick([
            "fleet", "--server", fixture.server.baseURL.absoluteString, "--org", "acme", "--token-file", tokenFile,
            "--json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(object?["org"] as? String == "acme")
        var byName: [String: [String: Any]] = [:]
        for station in object?["stations"] as? [[String: Any]] ?? [] {
            if let name = station["station"] as? String { byName[name] = station }
        }
        return byName
    }

    static func status(_ fixture: StationFixture, _ name: String) async throws -> String? {
        let reply = try await fixture.acme.get("/api/stations")
        let stations = reply.json["stations"] as? [[String: Any]] ?? []
        return stations.first { $0["station"] as? String == name }?["status"] as? String
    }

    @Test func twoStationsAndTheFleetViewAgree() async throws {
        // A backlog alert after 1.2 s and a heartbeat every second keep the test short.
        let fixture = try await StationFixture(
            viaProxy: true, serverConfig: ["backlogAlertMinutes": 0.02],
            stationConfig: ["station": "st-a", "heartbeatSeconds": 1])
        let proxy = try #require(fixture.proxy)
        let tokenFile = try fixture.folder.writePrivate(
            "acme.token", bytes: Array((ServerProcess.tokens["acme"] ?? "").utf8))

        // Station B: its own database, straight to the server, a camera that is not plugged in.
        var settingsB = fixture.settings
        settingsB["station"] = "st-b"
        settingsB["heartbeatSeconds"] = 3  // stale only after 9 s: a loaded machine's slow beat is not one
        settingsB["server"] = fixture.server.baseURL.absoluteString
        settingsB["database"] = fixture.folder.file("station-b.sqlite")
        let configB = try fixture.folder.writePrivate(
            "station-b.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: settingsB)))
        let opened = try await ProcessRunner.scanpick([
            "batch", "open", fixture.scenario.batchId, "--org", "acme", "--config", configB,
        ])
        #expect(opened.status == 0, "\(opened.standardError)")

        let stationA = try await StationProcess(config: fixture.config)
        let stationB = try await StationProcess(
            config: configB, arguments: ["--device", fixture.folder.file("video-not-plugged-in")])
        let pageA = APIClient(stationA.page, token: nil)
        let pageB = APIClient(stationB.page, token: nil)
        #expect(try await eventually { try await Self.status(fixture, "st-a") == "ok" })

        // B: the order is cut on the server after B opened the batch, so B's pick of 2 is refused:
        // a dead letter. Its camera is missing.
        let a1 = fixture.scenario.tasks[0]
        let cut = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: ["id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 1])
        #expect(cut.status == 200)
        #expect(try await pageB.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 2]).status == 200)
        #expect(try await eventually { try await Self.status(fixture, "st-b") == "dead_letters" })

        // A goes offline (its network answers 503 to everything) with a tap pending: stale after 3
        // missed heartbeats.
        proxy.answerEverything(with: .status(503, retryAfter: nil))
        #expect(try await eventually { try await pageA.get("/api/status").json["online"] as? Bool == false })
        let b3 = fixture.scenario.tasks[1]
        #expect(try await pageA.post("/api/taps", json: ["pickTaskId": b3, "kind": "pick", "qty": 1]).status == 200)
        #expect(try await eventually { try await Self.status(fixture, "st-a") == "stale" })

        var fleet = try await Self.fleet(fixture, tokenFile: tokenFile)
        #expect(fleet["st-a"]?["status"] as? String == "stale")
        #expect(fleet["st-b"]?["status"] as? String == "dead_letters")
        #expect(fleet["st-b"]?["problems"] as? [String] == ["dead_letters", "attention"])
        #expect(fleet["st-b"]?["camera"] as? String == "missing")
        #expect(fleet["st-b"]?["dead"] as? Int == 1)
        let table = try await ProcessRunner.scanpick([
            "fleet", "--server", fixture.server.baseURL.absoluteString, "--org", "acme", "--token-file", tokenFile,
        ])
        let lines = table.standardOutput.split(separator: "\n")
        #expect(lines.first == "organisation acme: 2 stations: 1 stale, 1 dead_letters", "\(table.standardOutput)")
        let rows = lines.dropFirst(2).map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(rows == ["st-a stale", "st-b dead_letters"], "\(table.standardOutput)")

        // A's network is back, but the server's answers to its pick are held: the tap waits, older
        // than the alert, so A reports a backlog.
        proxy.holdAnswers(to: "/api/picking/pick")
        proxy.answerEverything(with: nil)
        #expect(try await eventually { try await Self.status(fixture, "st-a") == "backlog" })
        fleet = try await Self.fleet(fixture, tokenFile: tokenFile)
        let pendingA = (fleet["st-a"]?["pending"] as? Int ?? 0) + (fleet["st-a"]?["inFlight"] as? Int ?? 0)
        #expect(pendingA == 1)

        // The answers come through: A drains and is ok again.
        proxy.releaseHeldAnswers()
        #expect(try await eventually { try await Self.status(fixture, "st-a") == "ok" })
        fleet = try await Self.fleet(fixture, tokenFile: tokenFile)
        #expect(fleet["st-a"]?["pending"] as? Int == 0)
        #expect(fleet["st-a"]?["lastSyncAt"] is String)
        #expect(try await fixture.picked()[1] == 1)
        // The server recorded which station sent it (X-ScanPick-Station, through the proxy).
        let senders = try Database(path: fixture.server.database).rows(
            "SELECT station FROM events WHERE pick_task_id = ?", [b3]
        ).map { try $0.optionalString("station") }
        #expect(senders == ["st-a"])

        // Both stations' /metrics parse and agree with `scanpick status --json`.
        let statusB = try await ProcessRunner.scanpick(["status", "--json", "--config", configB])
        let pillB = try #require(
            try JSONSerialization.jsonObject(with: Data(statusB.standardOutput.utf8)) as? [String: Any])
        let metricsB = try await PrometheusScrape.parse(try await pageB.get("/metrics").text)
        #expect(
            metricsB.value("scanpick_station_queue_actions", ["state": "dead"]) == Double(pillB["dead"] as? Int ?? -1))
        #expect(metricsB.value("scanpick_station_queue_actions", ["state": "dead"]) == 1)
        #expect(
            metricsB.value("scanpick_station_queue_actions", ["state": "pending"])
                == Double(pillB["pending"] as? Int ?? -1))
        #expect(
            metricsB.value("scanpick_station_attention_items")
                == Double((pillB["attention"] as? [Any])?.count ?? -1))
        #expect(metricsB.value("scanpick_station_camera_up") == 0)
        #expect(metricsB.value("scanpick_station_oldest_pending_age_seconds") == 0)

        let statusA = try await fixture.scanpick(["status", "--json"])
        let pillA = try #require(
            try JSONSerialization.jsonObject(with: Data(statusA.standardOutput.utf8)) as? [String: Any])
        let metricsA = try await PrometheusScrape.parse(try await pageA.get("/metrics").text)
        #expect(metricsA.value("scanpick_station_queue_actions", ["state": "pending"]) == 0)
        #expect(
            metricsA.value("scanpick_station_queue_actions", ["state": "dead"]) == Double(pillA["dead"] as? Int ?? -1))
        #expect(metricsA.value("scanpick_station_sent_total") == 1)
        #expect(metricsA.value("scanpick_station_online") == 1)
        #expect(metricsA.value("scanpick_station_drain_pass_duration_seconds_count") ?? 0 >= 1)
        #expect(metricsA.value("scanpick_station_camera_up") == nil)  // no camera in use
        for scrape in [metricsA, metricsB] {
            // The station's own families, the build's and the standard process ones.
            for name in scrape.names {
                #expect(
                    name.hasPrefix("scanpick_station_") || name == "scanpick_build_info" || name.hasPrefix("process_"),
                    "\(name)")
            }
        }

        // The server's metrics count both stations by status.
        let serverMetrics = APIClient(fixture.server.baseURL, token: nil)
        #expect(
            try await eventually {
                let scrape = try await PrometheusScrape.parse(try await serverMetrics.get("/metrics").text)
                return scrape.value("scanpick_stations", ["org": "acme", "status": "ok"]) == 1
                    && scrape.value("scanpick_stations", ["org": "acme", "status": "dead_letters"]) == 1
            })

        // The token (and the server) may come from a station config; a token of another
        // organisation, or no server, is said plainly, exit 1.
        let viaConfig = try await ProcessRunner.scanpick(["fleet", "--org", "acme", "--config", configB, "--json"])
        #expect(viaConfig.status == 0 && viaConfig.standardOutput.contains(#""station":"st-b""#), "\(viaConfig)")
        let wrongOrg = try await ProcessRunner.scanpick([
            "fleet", "--server", fixture.server.baseURL.absoluteString, "--org", "globex", "--token-file", tokenFile,
        ])
        #expect(wrongOrg.status == 1 && wrongOrg.standardError.contains("acts for organisation acme, not globex"))
        let nowhere = try await ProcessRunner.scanpick([
            "fleet", "--server", "http://127.0.0.1:1", "--org", "acme", "--token-file", tokenFile,
        ])
        #expect(nowhere.status == 1 && nowhere.standardError.contains("cannot reach the server"), "\(nowhere)")

        #expect(await stationA.stop() == 0)
        #expect(await stationB.stop() == 0)
    }
}
