import Foundation
import Queue
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
}
