import Foundation
import Queue
import Station
import TestSupport
import Testing

/// A queue file deleted under a running station once kept confirming taps as "durable" into a file
/// nothing could find again (after a restart they were gone). The station now refuses them with the
/// reason, says so in `attention`, and copies what the open file held out beside its path.
@Suite struct DeletedQueueTests {
    @Test func tapsAreRefusedOnceTheQueueFileIsDeletedAndWhatItHeldIsKept() async throws {
        let fixture = try await StationFixture(bulkQty: 20)
        let a1 = fixture.scenario.tasks[3]  // 20 required: no tap here is an over-pick
        _ = try await fixture.server.stop()  // the taps stay pending: what the deleted file held
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        for _ in 0..<5 {
            #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1]).status == 200)
        }
        let path = fixture.folder.file("station.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }

        for _ in 0..<5 {
            let tap = try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1])
            #expect(tap.status == 503, "\(tap.text)")
            #expect(tap.errorCode == "database_gone")
            #expect(tap.json["durable"] == nil)
        }
        var gone: [String: Any]?
        let said = await eventually {
            let attention = (try? await page.get("/api/status").json["attention"]) as? [[String: Any]] ?? []
            gone = attention.first { $0["code"] as? String == "database_gone" }
            return gone != nil
        }
        #expect(said)
        let message = gone?["message"] as? String ?? ""
        #expect(message.contains("it was deleted"), "\(message)")
        // What the file held before it was deleted is copied out, there for a salvage.
        let copies = try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path).filter {
            $0.hasPrefix("station.sqlite.rescued-")
        }
        let copy = try #require(copies.first, "no copy beside \(path)")
        #expect(message.contains(fixture.folder.file(copy)), "\(message)")
        let salvage = try ActionQueue.salvage(path: fixture.folder.file(copy))
        #expect(salvage.actions.filter { $0.pickTaskId == a1 }.count == 5)
        #expect(salvage.unreadable.isEmpty)
        _ = await station.stop()
    }

    /// A reload reads the config, whose check once opened and closed the queue file: closing any
    /// descriptor of a file drops every POSIX lock the process holds on it, SQLite's shared lock
    /// included, so the next other process to close the queue (here this test's, as `scanpick
    /// queue` would) took itself for the last user, deleted the -wal, and the station refused every
    /// tap after as `database_gone`. The station keeps its locks through any number of reloads.
    @Test func aReloadKeepsTheQueuesLocksSoAnotherProcessLeavesItsWalAlone() async throws {
        let fixture = try await StationFixture(bulkQty: 20)
        let a1 = fixture.scenario.tasks[3]
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1]).status == 200)
        let reloads = { station.logLines.filter { $0["event"] as? String == "config_reloaded" }.count }
        for round in 1...2 {
            station.send(SIGHUP)
            #expect(await eventually { reloads() >= round }, "\(station.standardError)")
        }
        let path = fixture.folder.file("station.sqlite")
        do {  // another process opens the queue and closes it, as `scanpick queue --json` does
            let other = try ActionQueue(path: path, extraMigrations: PickListCache.migrations)
            _ = try other.counts()
        }
        #expect(access(path + "-wal", F_OK) == 0, "the -wal was deleted under the running station")
        let tap = try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1])
        #expect(tap.status == 200, "\(tap.text)")
        let attention = (try await page.get("/api/status").json["attention"]) as? [[String: Any]] ?? []
        #expect(!attention.contains { $0["code"] as? String == "database_gone" }, "\(attention)")
        _ = await station.stop()
    }
}
