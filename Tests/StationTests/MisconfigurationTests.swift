import Foundation
import SQLiteStorage
import TestSupport
import Testing

/// A refusal of the station itself (a wrong token) pauses the queue instead of dead-lettering the
/// backlog; the status says why, and a corrected config is noticed without a restart. Real station
/// and `scanpick` processes against a real server.
@Suite struct MisconfigurationTests {
    @Test func aWrongTokenPausesTheQueueAndACorrectedConfigResumesIt() async throws {
        let fixture = try await StationFixture(bulkQty: 20)
        let z9 = fixture.scenario.tasks[3]
        try fixture.setAcmeToken("wrong-token")
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        for _ in 0..<20 {
            #expect(try await page.post("/api/taps", json: ["pickTaskId": z9, "kind": "pick", "qty": 1]).status == 200)
        }

        // The queue pauses with the reason in the page's status: nothing goes dead.
        #expect(try await eventually { try await Self.attentionCodes(page).contains("unauthorized") })
        let status = try await page.get("/api/status").json
        #expect(status["dead"] as? Int == 0)
        #expect(status["pending"] as? Int == 20)

        // `scanpick status` from a shell shows it too, with the server it probes.
        let json = try await fixture.scanpick(["status", "--json"])
        let shown = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(shown["server"] as? String == fixture.server.baseURL.absoluteString)
        let attention = try #require((shown["attention"] as? [[String: Any]])?.first)
        #expect(attention["code"] as? String == "unauthorized")
        #expect(
            (attention["message"] as? String)?.hasPrefix("the server refused this station's token for acme (401)")
                == true)
        let human = try await fixture.scanpick(["status"]).standardOutput
        #expect(human.contains("server \(fixture.server.baseURL.absoluteString)"))
        #expect(human.contains("needs attention: "))

        // A person draining by hand gets the same pause, not dead letters.
        let drained = try await fixture.scanpick(["drain"])
        #expect(drained.status == 3)
        #expect(drained.standardOutput.contains("paused, needs attention"))
        #expect(try await page.get("/api/status").json["dead"] as? Int == 0)

        // The token is fixed in the config file: the station notices, resumes, sends each tap once.
        try fixture.setAcmeToken(ServerProcess.tokens["acme"] ?? "")
        #expect(
            try await eventually {
                let status = try await page.get("/api/status").json
                return status["pending"] as? Int == 0 && status["inFlight"] as? Int == 0
            })
        #expect(try await eventually { try await Self.attentionCodes(page).isEmpty })
        #expect(try await page.get("/api/status").json["dead"] as? Int == 0)
        #expect(try await fixture.scenario.picked(on: fixture.acme)[z9] == 20)
        // Each pick was counted on its first try (the server logs a request after answering it).
        let firstTimes = {
            fixture.server.log.split(separator: "\n").filter {
                $0.contains(#""path":"/api/picking/pick""#) && $0.contains(#""status":200"#) && !$0.contains("replayed")
            }.count
        }
        #expect(await eventually { firstTimes() >= 20 })
        #expect(firstTimes() == 20)
        #expect(await station.stop() == 0)
    }

    /// Something that is not the API at the station's address — a captive portal's `200 <html>`,
    /// an http→https redirect, a web server's 405 page — never makes an action sent or dead: the
    /// queue pauses, says why, and sends the action once when the API answers again.
    @Test func anAnswerThatIsNotTheAPIsPausesAndNeverCountsAsSent() async throws {
        let fixture = try await StationFixture(viaProxy: true)
        let proxy = try #require(fixture.proxy)
        let a1 = fixture.scenario.tasks[0]
        #expect(try await fixture.scanpick(["tap", "pick", a1, "--org", "acme"]).status == 0)
        let html = ["Content-Type": "text/html"]
        let foreign: [(FaultProxy.Fault, String)] = [
            (.answer(200, headers: html, body: "<html>Welcome to the guest Wi-Fi</html>"), "not_the_api"),
            (
                .answer(
                    301, headers: ["Location": fixture.server.baseURL.absoluteString + "/api/picking/pick"], body: ""),
                "redirected"
            ),
            (.answer(405, headers: html, body: "<html><center>nginx</center></html>"), "method_not_allowed"),
            (.answer(400, headers: html, body: "<html>400 Bad Request</html>"), "not_the_api"),
        ]
        for (answer, code) in foreign {
            proxy.answerEverything(with: answer)
            let drained = try await fixture.scanpick(["drain"])
            #expect(drained.status == 3, "\(code): \(drained.standardOutput)")
            #expect(drained.standardOutput.contains("queue: 1 pending, 0 dead"), "\(code): \(drained.standardOutput)")
            #expect(drained.standardOutput.contains("paused, needs attention: "), "\(code)")
            let status = try await fixture.scanpick(["status", "--json"])
            let shown = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
            let codes = (shown?["attention"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes.contains(code), "\(status.standardOutput)")
            #expect(try await fixture.picked() == [0, 0, 0], "\(code)")
        }
        // The redirect was not followed: the server never saw the POST turned into a GET.
        #expect(!fixture.server.log.contains(#""path":"/api/picking/pick""#))

        proxy.answerEverything(with: nil)
        let drained = try await fixture.scanpick(["drain"])
        #expect(drained.status == 0, "\(drained.standardOutput)")
        #expect(drained.standardOutput.contains("drained: 1 sent, 0 dead"))
        #expect(try await fixture.picked() == [1, 0, 0])
    }

    /// An organisation removed from the config while its actions are queued pauses only its own
    /// actions: the others go on in order, and support can park the stranded ones and clear them.
    @Test func oneOrganisationsPauseNeverHoldsBackAnother() async throws {
        let fixture = try await StationFixture(globexScanning: false)
        let (a1, b3) = (fixture.scenario.tasks[0], fixture.scenario.tasks[1])
        let globex = try await fixture.scanpick([
            "tap", "pick", "globex-task", "--outside-batch", "--org", "globex", "--json",
        ])
        let stranded = try #require(
            (try JSONSerialization.jsonObject(with: Data(globex.standardOutput.utf8)) as? [String: Any])?["id"] as? Int)
        try fixture.rewriteConfig { settings in
            settings["organisations"] = (settings["organisations"] as? [String: Any])?.filter { $0.key == "acme" }
        }
        #expect(try await fixture.scanpick(["tap", "pick", a1, "--org", "acme"]).status == 0)
        #expect(try await fixture.scanpick(["tap", "pick", b3, "--org", "acme"]).status == 0)

        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        // acme's two go on (pending counts only actions not in flight, so wait for the server's count).
        #expect(try await eventually { try await fixture.picked() == [1, 1, 0] })
        #expect(try await eventually { try await page.get("/api/status").json["pending"] as? Int == 1 })
        #expect(try await eventually { try await Self.attentionCodes(page) == ["no_token"] })

        // Support parks the stranded action (clearing a pending one is refused, and says how), then clears it.
        let clear = try await fixture.scanpick(["queue", "clear", "\(stranded)", "--by", "support-jo"])
        #expect(clear.status != 0)
        #expect(clear.standardError.contains("scanpick queue park \(stranded)"), "\(clear.standardError)")
        let park = try await fixture.scanpick(["queue", "park", "\(stranded)", "--by", "support-jo"])
        #expect(park.status == 0, "\(park.standardError)")
        #expect(try await fixture.scanpick(["queue", "clear", "\(stranded)", "--by", "support-jo"]).status == 0)
        let status = try await page.get("/api/status").json
        #expect(status["pending"] as? Int == 0)
        #expect(status["dead"] as? Int == 0)
        #expect(try await Self.attentionCodes(page).isEmpty)
        #expect(await station.stop() == 0)
    }

    /// A drain lock the station cannot take (another user's file, or here a folder in its place) is
    /// shown as needing attention with what to do, not taken for another drainer forever.
    @Test func aDrainLockThatCannotBeTakenIsShownNotMistakenForAnotherDrainer() async throws {
        let fixture = try await StationFixture()
        let lock = fixture.folder.file("station.sqlite.drain-lock")
        try FileManager.default.createDirectory(atPath: lock, withIntermediateDirectories: false)
        let drained = try await fixture.scanpick(["drain"])
        #expect(drained.status == 1)
        #expect(drained.standardError.contains("drain lock \(lock) cannot be taken"), "\(drained.standardError)")
        #expect(!drained.standardOutput.contains("another process is draining"))

        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let a1 = fixture.scenario.tasks[0]
        #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick"]).status == 200)
        #expect(try await eventually { try await Self.attentionCodes(page).contains("drain_lock") })
        let status = try await page.get("/api/status").json
        let shown = (status["attention"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(shown.contains { $0.contains("chown USER \(lock)") }, "\(shown)")
        #expect(status["pending"] as? Int == 1)

        // Mended: the next pass (a tap asks for one) sends both taps and the attention goes.
        try FileManager.default.removeItem(atPath: lock)
        #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick"]).status == 200)
        #expect(try await eventually { try await page.get("/api/status").json["pending"] as? Int == 0 })
        #expect(try await eventually { try await Self.attentionCodes(page).isEmpty })
        #expect(try await fixture.picked() == [2, 0, 0])
        #expect(await station.stop() == 0)
    }

    @Test func sighupRereadsTheConfig() async throws {
        let fixture = try await StationFixture()
        let a1 = fixture.scenario.tasks[0]
        // The token lives in its own file; the wrong one has the right one's length.
        let right = ServerProcess.tokens["acme"] ?? ""
        let tokenFile = try fixture.folder.write("acme.token", text: String(repeating: "x", count: right.count))
        chmod(tokenFile, 0o600)
        try fixture.rewriteConfig { settings in
            settings["organisations"] = ["acme": ["tokenFile": tokenFile, "scanning": ["enabled": true]]]
        }
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1]).status == 200)
        #expect(try await eventually { try await Self.attentionCodes(page).contains("unauthorized") })

        // Fixed in place with its size and modification time kept, so only SIGHUP can tell.
        var before = stat()
        stat(tokenFile, &before)
        let handle = try #require(FileHandle(forWritingAtPath: tokenFile))
        handle.write(Data(right.utf8))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, tokenFile, &times, 0)
        station.send(SIGHUP)
        #expect(try await eventually { try await page.get("/api/status").json["pending"] as? Int == 0 })
        #expect(try await eventually { try await Self.attentionCodes(page).isEmpty })
        #expect(try await fixture.picked() == [1, 0, 0])
        #expect(await station.stop() == 0)
    }

    @Test func aConfigThatNoLongerLoadsIsShownAndThePreviousOneKept() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        try fixture.rewriteConfig { settings in settings["queue"] = ["backoffCapSeconds": "soon"] }
        #expect(try await eventually { try await Self.attentionCodes(page).contains("config_invalid") })
        // Taps still work on the settings it had.
        let tap = try await page.post(
            "/api/taps", json: ["pickTaskId": fixture.scenario.tasks[0], "kind": "pick", "qty": 1])
        #expect(tap.status == 200)
        try fixture.rewriteConfig { _ in }
        #expect(try await eventually { try await Self.attentionCodes(page).isEmpty })
        #expect(await station.stop() == 0)
    }

    /// A config that every user can change is not reloaded: a local user who rewrote `server` would
    /// be sent the organisation's token. The station keeps its settings and says why.
    @Test func aConfigOthersCanChangeIsNotReloaded() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let server = try await page.get("/api/status").json["server"] as? String
        chmod(fixture.config, 0o666)
        var rogue = fixture.settings
        rogue["server"] = "http://127.0.0.1:9"
        let handle = try #require(FileHandle(forWritingAtPath: fixture.config))  // in place: its mode stays
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: JSONSerialization.data(withJSONObject: rogue))
        try handle.close()
        station.send(SIGHUP)
        #expect(try await eventually { try await Self.attentionCodes(page).contains("config_invalid") })
        let status = try await page.get("/api/status").json
        #expect(status["server"] as? String == server, "\(status)")
        let messages = (status["attention"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.contains("can be changed by every user") }, "\(messages)")
        #expect(await station.stop() == 0)
    }

    /// A corrected config that loads but whose pause cannot be lifted (the database stays locked
    /// past its busy timeout) is said as that, not as a config that does not load.
    @Test func aPauseThatCannotBeLiftedIsNotCalledABadConfig() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let other = try Database(path: fixture.folder.file("station.sqlite"))
        try other.execute("BEGIN IMMEDIATE")  // another writer holds the database
        station.send(SIGHUP)
        #expect(try await eventually { try await Self.attentionCodes(page).contains("resume_failed") })
        #expect(try await !Self.attentionCodes(page).contains("config_invalid"))
        try other.execute("COMMIT")
        station.send(SIGHUP)
        #expect(try await eventually { try await Self.attentionCodes(page).isEmpty })
        #expect(await station.stop() == 0)
    }

    @Test func aStationWhoseConfigOthersCanReadRefusesToStart() async throws {
        let fixture = try await StationFixture()
        chmod(fixture.config, 0o644)
        let refused = try await fixture.scanpick(["station", "--wedge"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("readable by other users; run `chmod 600 "))
    }

    /// A page address another program holds (here the server) stops the station at start with that
    /// address and the config key that set it, and none of libmicrohttpd's own words ("Failed to bind
    /// to port 0" named a port no one asked for).
    @Test func aPageAddressInUseIsRefusedNamingItAndPageListen() async throws {
        let fixture = try await StationFixture()
        let busy = "127.0.0.1:\(fixture.server.port)"
        try fixture.rewriteConfig { $0["page"] = ["listen": busy] }
        let refused = try await fixture.scanpick(["station", "--wedge"], input: "")
        #expect(refused.status == 1)
        // Besides its JSON log lines (a journal priority, then an object), only the reason.
        let lines = refused.standardError.split(separator: "\n").filter { !$0.contains("{\"") }
        #expect(
            lines == [
                #"scanpick station: cannot listen on \#(busy): the address is already in use (the address is the config's "page.listen")"#
            ], "\(refused.standardError)")
        #expect(!refused.standardError.contains("Failed to bind"))
        #expect(!refused.standardOutput.contains("page:"), "\(refused.standardOutput)")
    }

    /// Under systemd, why the station failed to start is an `err` line of the journal
    /// (`journalctl -p warning` shows it): JSON like every other line, with the `<3>` prefix when
    /// standard error is the stream `JOURNAL_STREAM` names (here a pipe standing in for it).
    @Test func aFatalStartUpErrorIsAnErrLineInTheJournal() async throws {
        let fixture = try await StationFixture()
        let busy = "127.0.0.1:\(fixture.server.port)"
        try fixture.rewriteConfig { $0["page"] = ["listen": busy] }
        let journal = try await ProcessRunner.run(
            "/bin/sh",
            [
                "-c", #"JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" station --wedge --config "$1""#,
                ProcessRunner.scanpick, fixture.config,
            ], in: fixture.folder.path, input: [])
        #expect(journal.status == 1)
        let tagged = LogLines(journal.standardError)
        let fatal = try #require(tagged.objects.first { $0.object["event"] as? String == "start_failed" })
        #expect(fatal.priority == 3, "\(journal.standardError)")
        #expect(fatal.object["level"] as? String == "error")
        #expect(fatal.object["service"] as? String == "page")
        #expect((fatal.object["message"] as? String)?.contains("page.listen") == true)
        // Every JSON line carries its priority; the last line is the command's own words, at err too.
        let lines = journal.standardError.split(separator: "\n")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("<") && $0.contains("{\"time\":") }, "\(lines)")
        #expect(lines.last?.hasPrefix("<3>scanpick station: ") == true, "\(lines)")
    }

    static func attentionCodes(_ page: APIClient) async throws -> [String] {
        let status = try await page.get("/api/status").json
        return (status["attention"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }
}
