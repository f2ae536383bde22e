import Foundation
import Queue
import TestSupport
import Testing

/// `scanpick tap`, `queue`, `drain` and `status` as support and pickers run them.
@Suite struct QueueCommandTests {
    /// An action of an organisation the station has no token for was never sent: `drain` does not
    /// say the server refused it.
    @Test func drainSaysAnActionWithoutATokenWasKeptNotRefused() async throws {
        let fixture = try await QueueFixture()
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        let id = try fixture.queue.enqueue(.pick(org: "globex", pickTaskId: "g1", location: nil, qty: 1, worker: "w"))
        let drained = try await ProcessRunner.scanpick(["drain", "--config", config])
        #expect(drained.status == 3)
        #expect(
            drained.standardOutput.contains("paused   #\(id)  pick g1 · ×1  (no_token: kept;"),
            "\(drained.standardOutput)")
        #expect(!drained.standardOutput.contains("the server refused"))
        #expect(drained.standardOutput.contains("no token is configured for organisation globex"))
        #expect(fixture.proxy.log.isEmpty && !fixture.server.log.contains("/api/picking/pick"))
    }

    @Test func tapsQueueAtOnceOfflineAndDrainWhenTheServerIsBack() async throws {
        let fixture = try await QueueFixture()
        let config = try fixture.stationConfig(server: fixture.server.baseURL, timeout: 2)
        try await fixture.server.stop()
        let task = fixture.scenario.tasks[0]
        let tap = try await ProcessRunner.scanpick([
            "tap", "pick", task, "--outside-batch", "--org", "acme", "--qty", "2", "--config", config,
        ])
        #expect(tap.status == 0)
        #expect(tap.standardOutput.hasPrefix("queued #1 pick \(task) · ×2"))
        let json = try await ProcessRunner.scanpick(
            [
                "tap", "qty", task, "--outside-batch", "--org", "acme", "--from", "2", "--to", "1", "--json",
                "--config", config,
            ])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["id"] as? Int == 2)
        #expect(object["label"] as? String == "qty \(task) · 2→1")

        let offline = try await ProcessRunner.scanpick(["status", "--json", "--config", config])
        let status = try #require(
            try JSONSerialization.jsonObject(with: Data(offline.standardOutput.utf8)) as? [String: Any])
        #expect(status["online"] as? Bool == false)
        #expect(status["serverReady"] is NSNull)
        #expect(status["pending"] as? Int == 2)
        #expect(status["lastSyncAt"] is NSNull)
        // The server cannot be reached: exit 3, and --check says so on one line.
        #expect(offline.status == 3)
        let offlineCheck = try await ProcessRunner.scanpick(["status", "--check", "--config", config])
        #expect(offlineCheck.status == 3)
        #expect(
            offlineCheck.standardOutput.hasPrefix("offline: the server http://127.0.0.1:")
                && offlineCheck.standardOutput.hasSuffix(" cannot be reached\n"), "\(offlineCheck.standardOutput)")
        var helps: [String] = []
        for arguments in [["status", "--help"], ["tap", "qty", "--help"]] {
            helps.append(try await ProcessRunner.scanpick(arguments).standardOutput)
        }
        for key in status.keys { #expect(helps[0].contains("\"\(key)\""), "status --help omits \(key)") }
        for key in object.keys { #expect(helps[1].contains("\"\(key)\""), "tap qty --help omits \(key)") }
        let stuck = try await ProcessRunner.scanpick(["drain", "--config", config])
        #expect(stuck.status == 3)
        #expect(stuck.standardOutput.contains("waiting  #1"))

        try await fixture.server.start()
        let drained = try await ProcessRunner.scanpick(["drain", "--config", config])
        #expect(drained.status == 0)
        #expect(drained.standardOutput.contains("sent     #1  pick \(task) · ×2  (200)"))
        #expect(drained.standardOutput.contains("drained: 2 sent, 0 dead; queue: 0 pending, 0 dead"))
        #expect(try await fixture.picked()[0] == 1)
        let online = try await ProcessRunner.scanpick(["status", "--config", config])
        #expect(online.standardOutput.hasPrefix("online · 0 pending · 0 in flight · 0 dead · last sync 20"))
        #expect(online.status == 0)
        let fine = try await ProcessRunner.scanpick(["status", "--check", "--config", config])
        #expect(fine.status == 0)
        #expect(fine.standardOutput.hasPrefix("ok: online, 0 pending, 0 dead, last sync 20"), "\(fine.standardOutput)")
    }

    /// A server that answers but whose database does not is told apart from one that is gone.
    @Test func statusShowsTheServersReadinessApartFromItsReachability() async throws {
        let cluster = try await PostgresCluster.started()
        let server = try await ServerProcess(store: .postgres, database: try await cluster.newDatabase())
        let folder = try TemporaryDirectory("scanpick-station")
        let config = try folder.writePrivate(
            "station.json",
            bytes: [UInt8](
                try JSONSerialization.data(withJSONObject: [
                    "station": "test-1", "worker": "w", "server": server.baseURL.absoluteString,
                    "database": folder.file("station.sqlite"), "organisations": ["acme": ["token": QueueFixture.token]],
                ])))
        func status() async throws -> [String: Any] {
            let run = try await ProcessRunner.scanpick(["status", "--json", "--config", config])
            return try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any] ?? [:]
        }
        #expect(try await status()["serverReady"] as? Bool == true)
        try await cluster.stop()
        let down = try await status()
        #expect(down["online"] as? Bool == true)
        #expect(down["serverReady"] as? Bool == false)
        let text = try await ProcessRunner.scanpick(["status", "--config", config]).standardOutput
        #expect(text.contains("answers, but its database does not"))
        try await server.stop()
        let gone = try await status()
        #expect(gone["online"] as? Bool == false)
        #expect(gone["serverReady"] is NSNull)
    }

    @Test func theQueueTableShowsDeadLettersAndSupportRetriesOrClearsThem() async throws {
        let fixture = try await QueueFixture()
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        _ = try fixture.pick(0)
        let refused = try fixture.pick(2, qty: 4)
        _ = try await ProcessRunner.scanpick(["drain", "--config", config])
        let table = try await ProcessRunner.scanpick(["queue", "--config", config]).standardOutput
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].split(separator: " ").filter { !$0.isEmpty } == ["#", "action", "state", "tries"])
        #expect(lines[1].split(separator: " ").filter { !$0.isEmpty }.last == "1")
        #expect(lines.contains { $0.hasPrefix("×") && $0.contains("dead") })
        #expect(table.contains("#\(refused) refused 422: over_pick:"))
        // A dead letter needs a person: status says so and exits 2, for monitoring.
        let deadCheck = try await ProcessRunner.scanpick(["status", "--check", "--config", config])
        #expect(deadCheck.status == 2)
        #expect(deadCheck.standardOutput == "1 dead letter: support retries or clears each (scanpick queue show)\n")

        let json = try await ProcessRunner.scanpick(["queue", "--json", "--config", config]).standardOutput
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(
            Set(rows[0].keys).isSuperset(of: [
                "id", "org", "kind", "pickTaskId", "state", "tries", "idempotencyKey", "createdAt", "nextAttemptAt",
                "lastStatus", "lastError",
            ]))
        #expect(rows[1]["state"] as? String == "dead")
        #expect(rows[1]["lastStatus"] as? Int == 422)
        // The help is generated, but what it says of the JSON is written by hand: it must name every key.
        let help = try await ProcessRunner.scanpick(["queue", "show", "--help"]).standardOutput
        for key in rows[0].keys { #expect(help.contains("\"\(key)\""), "queue show --help omits \(key)") }

        let anonymous = try await ProcessRunner.scanpick([
            "queue", "retry", "\(refused)", "--by", "", "--config", config,
        ])
        #expect(anonymous.status == 2)
        #expect(anonymous.standardError.contains("say who does this: --by NAME"))
        #expect(
            try await ProcessRunner.scanpick(["queue", "retry", "\(refused)", "--by", "support-jo", "--config", config])
                .status
                == 0)
        #expect(try fixture.queue.action(refused)?.state == .pending)
        _ = try await ProcessRunner.scanpick(["drain", "--config", config])
        let cleared = try await ProcessRunner.scanpick([
            "queue", "clear", "\(refused)", "--by", "support-jo", "--config", config,
        ])
        #expect(cleared.standardOutput.contains("cleared by support-jo"))
        #expect(try fixture.queue.log().first?.actor == "support-jo")
        let notDead = try await ProcessRunner.scanpick([
            "queue", "clear", "1", "--by", "support-jo", "--config", config,
        ])
        #expect(notDead.status == 1)
        #expect(notDead.standardError.contains("only dead letters can be retried or cleared"))
    }

    @Test func commandLineMistakesAreClear() async throws {
        let fixture = try await QueueFixture()
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        let unknownOrg = try await ProcessRunner.scanpick([
            "tap", "pick", "t1", "--outside-batch", "--org", "globex", "--config", config,
        ])
        #expect(unknownOrg.status == 1)
        #expect(unknownOrg.standardError.contains("organisations.globex"))
        #expect(
            try await ProcessRunner.scanpick(["tap", "drop", "t1", "--org", "acme", "--config", config]).status == 2)
        #expect(
            try await ProcessRunner.scanpick([
                "tap", "qty", "t1", "--outside-batch", "--org", "acme", "--config", config,
            ]).status == 2)
        let missing = try await ProcessRunner.scanpick(["status", "--config", fixture.folder.file("nope.json")])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot be read: it does not exist"))

        // A mistyped database: what only looks at the queue, or acts on what is in it, refuses it
        // and makes nothing; status still answers (is the server reachable?) and says what it made.
        let typo = fixture.folder.file("statoin.sqlite")
        var settings = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as? [String: Any])
        settings["database"] = typo
        let typoConfig = try fixture.folder.writePrivate(
            "typo.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: settings)))
        for command in [["queue", "show"], ["queue", "clear", "1", "--by", "support-jo"], ["pick-list"]] {
            let refused = try await ProcessRunner.scanpick(command + ["--config", typoConfig])
            #expect(refused.status == 1, "\(command)")
            #expect(refused.standardError.contains("names \(typo), which does not exist"), "\(refused)")
        }
        #expect(!FileManager.default.fileExists(atPath: typo))
        let first = try await ProcessRunner.scanpick(["status", "--json", "--config", typoConfig])
        #expect(first.status == 2)  // it needs attention
        #expect(first.standardOutput.contains(#""code":"queue_created""#), "\(first)")
        let second = try await ProcessRunner.scanpick(["status", "--json", "--config", typoConfig])
        #expect(second.status == 0 && !second.standardOutput.contains("queue_created"), "\(second)")
    }

    /// `--org` may be left out where only one answer makes sense: the only configured organisation,
    /// or for a tap, the open batch's.
    @Test func theOrganisationDefaultsToTheOnlyOneOrTheOpenBatchs() async throws {
        let fixture = try await QueueFixture()
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        let task = fixture.scenario.tasks[0]
        let tap = try await ProcessRunner.scanpick([
            "tap", "pick", task, "--outside-batch", "--json", "--config", config,
        ])
        #expect(tap.status == 0, "\(tap.standardError)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(tap.standardOutput.utf8)) as? [String: Any])?["id"] as? Int)
        #expect(try fixture.queue.action(id)?.org == "acme")

        // With two organisations and no open batch, the station asks which one.
        var settings = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as? [String: Any])
        var organisations = try #require(settings["organisations"] as? [String: Any])
        organisations["globex"] = ["token": ServerProcess.tokens["globex"] ?? ""]
        settings["organisations"] = organisations
        let two = try fixture.folder.writePrivate(
            "two.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: settings)))
        let which = try await ProcessRunner.scanpick(["tap", "pick", task, "--outside-batch", "--config", two])
        #expect(which.status == 1)
        #expect(
            which.standardError.contains(
                "no batch is open and this station has 2 organisations (acme, globex): name one with --org ORG"))
        // Once a batch is open, a tap is for its organisation.
        #expect(
            try await ProcessRunner.scanpick(["batch", "open", fixture.scenario.batchId, "--config", two]).status == 1)
        let opened = try await ProcessRunner.scanpick([
            "batch", "open", fixture.scenario.batchId, "--org", "acme", "--config", two,
        ])
        #expect(opened.status == 0, "\(opened.standardError)")
        let afterOpen = try await ProcessRunner.scanpick(["tap", "pick", task, "--json", "--config", two])
        #expect(afterOpen.status == 0, "\(afterOpen.standardError)")
        // A task that is not in the open batch would only go dead on the server: refused here.
        let elsewhere = try await ProcessRunner.scanpick(["tap", "pick", "task-typo", "--config", two])
        #expect(elsewhere.status == 1)
        #expect(elsewhere.standardError.contains("task task-typo is not in the open batch"))
        let otherOrg = try await ProcessRunner.scanpick(["tap", "pick", task, "--org", "globex", "--config", two])
        #expect(otherOrg.status == 1)
        #expect(otherOrg.standardError.contains("of globex is not in the open batch"))
    }
}
