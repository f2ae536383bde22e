import Foundation
import Queue
import Station
import TestSupport
import Testing

/// The station keeps its page, taps and drainer running whatever its frame source does, and says
/// what is wrong: real `scanpick station` processes against a real server.
@Suite struct KeepsRunningTests {
    @Test func aCameraMissingAtStartIsShownAndTheStationKeepsRunning() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(
            config: fixture.config, arguments: ["--device", fixture.folder.file("video-not-plugged-in")])
        let page = APIClient(station.page, token: nil)
        #expect(
            try await eventually { try await page.get("/api/status").json["scanner"] as? String == "camera: not found" }
        )
        let status = try await page.get("/api/status").json
        let attention = try #require((status["attention"] as? [[String: Any]])?.first)
        #expect(attention["code"] as? String == "camera_not_found")
        #expect((attention["message"] as? String)?.contains("video-not-plugged-in: no such device") == true)
        // Taps and the drainer carry on.
        let tap = try await page.post("/api/taps", json: ["pickTaskId": fixture.scenario.tasks[0], "kind": "pick"])
        #expect(tap.status == 200)
        #expect(try await eventually { try await fixture.picked() == [1, 0, 0] })
        // `scanpick status` in another process shows it too, while the station runs.
        #expect(try await Self.statusAttention(fixture) == ["camera_not_found"])
        #expect(await station.stop() == 0)
        #expect(try await Self.statusAttention(fixture).isEmpty)
    }

    /// The attention codes `scanpick status --json` shows.
    static func statusAttention(_ fixture: StationFixture) async throws -> [String] {
        let status = try await fixture.scanpick(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
        return (object?["attention"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    @Test func aWedgeInputThatEndsIsShownAndTheStationKeepsRunning() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        station.scan("036000291452")
        station.endInput()
        #expect(
            try await eventually {
                try await page.get("/api/status").json["scanner"] as? String == "scanner: input ended"
            })
        let codes = (try await page.get("/api/status").json["attention"] as? [[String: Any]])?.compactMap {
            $0["code"] as? String
        }
        #expect(codes == ["scanner_input_ended"])
        // The scan before the end counted, and taps still work after it.
        let tap = try await page.post("/api/taps", json: ["pickTaskId": fixture.scenario.tasks[0], "kind": "pick"])
        #expect((tap.json["pickTask"] as? [String: Any])?["qtyPicked"] as? Int == 2)
        #expect(await station.stop() == 0)
        #expect(station.standardOutput.contains("stopped: 1 scans accepted"))
    }

    @Test func aScanThatCannotBeRecordedIsShownAndTheRunSaysSo() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        // The queue's table becomes unusable under the running station.
        let queue = try ActionQueue(
            path: fixture.folder.file("station.sqlite"), extraMigrations: PickListCache.migrations)
        try queue.database.write { try $0.execute("ALTER TABLE actions RENAME TO actions_gone") }
        station.scan("036000291452")
        #expect(
            try await eventually {
                let codes = (try await page.get("/api/status").json["attention"] as? [[String: Any]])?.compactMap {
                    $0["code"] as? String
                }
                return codes?.contains("scan_failed") == true
            })
        // The pill still answers: the counts are unknown (null), and it says why.
        let status = try await page.get("/api/status")
        #expect(status.status == 200)
        #expect(status.json["pending"] is NSNull)
        let codes = (status.json["attention"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        #expect(codes.contains("database_failed"))
        let banner = status.json["lastScan"] as? [String: Any]
        #expect((banner?["message"] as? String)?.contains("could not be recorded") == true)
        try queue.database.write { try $0.execute("ALTER TABLE actions_gone RENAME TO actions") }
        #expect(await station.stop() == 1)
    }
}
