import Foundation
import TestSupport
import Testing

/// A server pointed at a new, empty database answers `not_found` for every task: the station pauses
/// with attention instead of dead-lettering its backlog, and sends it all once the right server is
/// back.
@Suite struct ReplacedServerDatabaseTests {
    @Test func aServerThatForgotTheBatchPausesTheQueueInsteadOfDeadLetteringIt() async throws {
        let fixture = try await StationFixture()
        let empty = try await ServerProcess()  // the same tokens, a database of its own
        let (a1, b3) = (fixture.scenario.tasks[0], fixture.scenario.tasks[1])
        for task in [a1, b3, a1] {
            #expect(try await fixture.scanpick(["tap", "pick", task, "--org", "acme"]).status == 0)
        }
        // A tap for a task this station never had: that refusal stands, as before.
        let stranger = try await fixture.scanpick(["tap", "pick", "task-none", "--org", "acme", "--outside-batch"])
        #expect(stranger.status == 0, "\(stranger.standardError)")
        try fixture.rewriteConfig { $0["server"] = empty.baseURL.absoluteString }

        let drained = try await fixture.scanpick(["drain"])
        #expect(drained.status == 3, "\(drained.standardOutput)")
        let status = try await fixture.scanpick(["status", "--json"])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect(json["dead"] as? Int == 0)
        #expect(json["pending"] as? Int == 4)
        let attention = json["attention"] as? [[String: Any]] ?? []
        let lost = try #require(attention.first { $0["code"] as? String == "server_lost_batch" }?["message"] as? String)
        #expect(lost.hasPrefix("the server does not know batch \(fixture.scenario.batchId) of acme"), "\(lost)")
        #expect(lost.contains("was its database replaced?"))

        // The right server again: everything goes, once; the stranger's refusal stands.
        try fixture.rewriteConfig { _ in }
        let again = try await fixture.scanpick(["drain"])
        #expect(again.standardOutput.contains("drained: 3 sent, 1 dead"), "\(again.standardOutput)")
        let picked = try await fixture.scenario.picked(on: fixture.acme)
        #expect(picked[a1] == 2)
        #expect(picked[b3] == 1)
        try await empty.stop()
    }
}
