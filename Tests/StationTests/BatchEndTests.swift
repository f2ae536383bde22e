import Foundation
import TestSupport
import Testing

/// Batches end, seen from the station: a supervisor's `scanpick batch close`, and a batch the
/// server closed itself once complete, against a real server. The station stops counting on a
/// closed batch and says so.
@Suite struct BatchEndTests {
    @Test func aSupervisorClosesABatchAndTheStationStopsCountingOnIt() async throws {
        let fixture = try await StationFixture()
        let (a1, c2) = (fixture.scenario.tasks[0], fixture.scenario.tasks[2])
        let id = fixture.scenario.batchId
        #expect(try await fixture.scanpick(["tap", "pick", a1, "--org", "acme"]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 0)

        let closed = try await fixture.scanpick(["batch", "close", id])
        #expect(closed.status == 0, "\(closed.standardError)")
        #expect(closed.standardOutput.contains("closed batch \(id) (acme) at "))
        #expect(closed.standardOutput.contains("3 unfinished tasks go back to the pool for the next batch"))
        #expect(try await fixture.acme.get("/api/batches/\(id)").json["status"] as? String == "closed")

        // The station knows at once: a tap is refused before anything is queued, a scan says the
        // batch is over, and the pick list says it is closed.
        let late = try await fixture.scanpick(["tap", "pick", c2, "--org", "acme"])
        #expect(late.status == 1)
        #expect(late.standardError.contains("batch \(id) is closed: nothing more counts on it"))
        let scans = try await fixture.wedge(["96385074"], expecting: 1)
        #expect(scans.scans.first?["reason"] as? String == "batch_complete")
        #expect(scans.standardOutput.contains("This batch is done"))
        let list = try await fixture.scanpick(["pick-list", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [String: Any])
        #expect(object["closed"] as? Bool == true)
        #expect(object["activeTaskId"] is NSNull)
        #expect(
            try await fixture.scanpick(["queue", "--json"]).standardOutput.contains("\"state\":\"pending\"") == false)
        #expect(try await fixture.picked() == [1, 0, 0])

        let missing = try await fixture.scanpick(["batch", "close", "batch-none"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("404"))
    }

    @Test func aBatchCompletedOnTheServerStaysOpenForCorrectionsUntilItIsClosed() async throws {
        let fixture = try await StationFixture()
        let (a1, b3, c2) = (fixture.scenario.tasks[0], fixture.scenario.tasks[1], fixture.scenario.tasks[2])
        for (task, qty) in [(a1, "3"), (b3, "2"), (c2, "1")] {
            #expect(try await fixture.scanpick(["tap", "pick", task, "--org", "acme", "--qty", qty]).status == 0)
        }
        #expect(try await fixture.scanpick(["drain"]).status == 0)
        let listed = try await fixture.acme.get("/api/batches").json["batches"] as? [[String: Any]] ?? []
        #expect(listed.first { $0["id"] as? String == fixture.scenario.batchId }?["status"] as? String == "complete")
        #expect(try await fixture.scanpick(["batch", "refresh"]).status == 0)
        func closed() async throws -> Bool? {
            let list = try await fixture.scanpick(["pick-list", "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [String: Any]
            return object?["closed"] as? Bool
        }
        #expect(try await closed() == false)
        // A correction still counts on a complete batch.
        #expect(
            try await fixture.scanpick(["tap", "qty", a1, "--org", "acme", "--from", "3", "--to", "2"]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 0)
        #expect(try await fixture.picked() == [2, 2, 1])
        let close = try await fixture.scanpick(["batch", "close", fixture.scenario.batchId])
        #expect(close.status == 0, "\(close.standardError)")
        #expect(try await closed() == true)
    }
}
