import Foundation
import Queue
import SQLiteStorage
import TestSupport
import Testing

@testable import Station

/// The station's local page and API, served by a real `scanpick station` process.
@Suite struct StationPageTests {
    @Test func servesThePageAndTheJSONShapesOfTheCommandLine() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let html = try await page.get("/")
        #expect(html.status == 200)
        #expect(html.text.contains("<title>ScanPick Station</title>"))
        // Every script and style sheet index.html loads is served, as what it is.
        let loaded = html.text.matches(of: /(?:src|href)="(\/[a-z-]+\.(?:js|css))"/).map { String($0.output.1) }
        #expect(loaded.count >= 7, "\(loaded)")
        for path in loaded {
            let file = try await page.get(path)
            #expect(file.status == 200, "\(path)")
            #expect(
                file.headers["content-type"]?.hasPrefix(path.hasSuffix(".js") ? "text/javascript" : "text/css") == true)
        }
        #expect(try await page.get("/nothing.js").status == 404)
        let list = try await page.get("/api/pick-list")
        #expect(list.json["batchId"] as? String == fixture.scenario.batchId)
        #expect((list.json["tasks"] as? [[String: Any]])?.count == 3)
        let status = try await page.get("/api/status")
        #expect(Set(status.json.keys).isSuperset(of: ["online", "pending", "inFlight", "dead", "lastSyncAt"]))
        // Routes as the API server declares them: 404 for a path with no route, 405 naming the method.
        let missing = try await page.get("/api/nothing")
        #expect(missing.status == 404)
        #expect(missing.json["error"] as? String == "no_such_route")
        let wrongMethod = try await page.get("/api/taps")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "POST")
        let noAction = try await page.post("/api/queue/x9/retry", json: ["by": "support-jo"])
        #expect(noAction.status == 404)
        #expect(await station.stop() == 0)
    }

    /// The station's own faults are 5xx (the request was fine, nothing was done); the requester's
    /// are 4xx.
    @Test func failuresAreAnsweredByWhoseFaultTheyAre() {
        struct Unforeseen: Error {}
        let cases: [(any Error, Int, String)] = [
            (SQLiteError.sqlite(code: 10, message: "disk I/O error", sql: "INSERT"), 503, "storage"),
            (Unforeseen(), 500, "internal"),
            (DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "x")), 400, "bad_request"),
            (TapRefusal.invalidQuantity("1e99 is not a quantity"), 422, "invalid_quantity"),
        ]
        for (error, status, code) in cases {
            let answer = StationPage.httpError(error)
            #expect(answer.status == status, "\(error)")
            #expect(answer.code == code, "\(error)")
        }
    }

    @Test func aTapAnswersOnceDurableAndTheRowFlips() async throws {
        let fixture = try await StationFixture()
        try await fixture.server.stop()  // the dead spot: the tap must not wait for the server
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let a1 = fixture.scenario.tasks[0]
        let tap = try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 2])
        #expect(tap.status == 200)
        #expect((tap.json["pickTask"] as? [String: Any])?["qtyPicked"] as? Int == 2)
        let list = try await page.get("/api/pick-list")
        let row = try #require((list.json["tasks"] as? [[String: Any]])?.first { $0["id"] as? String == a1 })
        #expect(row["qtyPicked"] as? Int == 2)
        #expect(row["pending"] as? Bool == true)
        let over = try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "setQty", "from": 2, "to": 9])
        #expect(over.status == 422)
        #expect((over.json["message"] as? String)?.contains("over the 3 required") == true)
        let status = try await page.get("/api/status")
        #expect(status.json["pending"] as? Int == 1)
        #expect(await station.stop() == 0)
    }

    /// A set-quantity tap from a page (or a shell) that shows an old count is refused with the
    /// current one: it never wipes the picks made since, on the station or the server.
    @Test func aSetQtyFromAStaleCountIsRefusedAndLosesNoPicks() async throws {
        let fixture = try await StationFixture(bulkQty: 60)
        let z9 = fixture.scenario.tasks[3]
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        #expect(try await page.post("/api/taps", json: ["pickTaskId": z9, "kind": "pick", "qty": 7]).status == 200)
        // Another tap (here from a shell) takes Z9 on to 50 while a page still shows 7.
        #expect(try await fixture.scanpick(["tap", "pick", z9, "--org", "acme", "--qty", "43"]).status == 0)

        let stale = try await page.post("/api/taps", json: ["pickTaskId": z9, "kind": "setQty", "from": 7, "to": 8])
        #expect(stale.status == 409)
        #expect(stale.errorCode == "stale_count")
        #expect((stale.json["message"] as? String)?.contains("is at 50 now, not 7") == true, "\(stale.text)")
        let shell = try await fixture.scanpick(["tap", "qty", z9, "--org", "acme", "--from", "7", "--to", "8"])
        #expect(shell.status != 0)
        #expect(shell.standardError.contains("is at 50 now, not 7"), "\(shell.standardError)")

        // The count seen now is accepted.
        let fresh = try await page.post("/api/taps", json: ["pickTaskId": z9, "kind": "setQty", "from": 50, "to": 49])
        #expect(fresh.status == 200, "\(fresh.text)")
        #expect(
            try await eventually {
                let status = try await page.get("/api/status").json
                return status["pending"] as? Int == 0 && status["inFlight"] as? Int == 0
            })
        #expect(try await fixture.pickList()[z9]?["qtyPicked"] as? Int == 49)
        #expect(try await fixture.scenario.picked(on: fixture.acme)[z9] == 49)
        // Nothing of the refused taps was queued.
        let queued = try await page.get("/api/queue")
        let kinds = (try JSONSerialization.jsonObject(with: queued.body) as? [[String: Any]] ?? []).map {
            $0["kind"] as? String ?? ""
        }
        #expect(kinds == ["pick", "pick", "setQty"], "\(queued.text)")
        #expect(await station.stop() == 0)
    }

    /// The page polls `/api/queue`: its answer stays small however much sent history the station
    /// keeps (a year of it, at most), and never leaves out an action still to send or a dead one.
    @Test func theQueueThePagePollsIsBoundedWhateverTheHistory() async throws {
        let fixture = try await StationFixture()
        let a1 = fixture.scenario.tasks[0]
        #expect(
            try await fixture.scanpick(["tap", "pick", "task-unknown", "--outside-batch", "--org", "acme"]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 0)  // refused: a dead letter
        let queue = try ActionQueue(
            path: fixture.folder.file("station.sqlite"), extraMigrations: PickListCache.migrations)
        _ = try queue.transaction { db in
            try db.run(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
                INSERT INTO actions (org, kind, pick_task_id, label, payload, idempotency_key, state, created_at,
                    updated_at, sent_at)
                SELECT 'acme', 'pick', 'old-task', 'pick old · ×1', '{}', 'history-' || i, 'sent',
                    '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                FROM n
                """)
        }
        try await fixture.server.stop()  // so the next tap stays pending
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick"]).status == 200)

        let shown = try #require(
            try JSONSerialization.jsonObject(with: try await page.get("/api/queue").body) as? [[String: Any]])
        let states = shown.compactMap { $0["state"] as? String }
        #expect(states.filter { $0 == "sent" }.count == 50)
        #expect(states.filter { $0 == "dead" }.count == 1)
        #expect(states.filter { $0 == "pending" || $0 == "inFlight" }.count == 1)
        let ids = shown.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted())
        #expect(shown.last?["state"] as? String != "sent")  // the newest, the pending tap, is there
        #expect(shown.contains { $0["idempotencyKey"] as? String == "history-5000" })
        #expect(!shown.contains { $0["idempotencyKey"] as? String == "history-4950" })
        #expect(await station.stop() == 0)
    }

    @Test func otherSitesCannotTapForThePicker() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let body: [String: Any] = ["pickTaskId": fixture.scenario.tasks[0], "kind": "pick", "qty": 1]
        let fromElsewhere = try await page.post("/api/taps", json: body, headers: ["Origin": "http://evil.example"])
        #expect(fromElsewhere.status == 403)
        #expect(fromElsewhere.errorCode == "cross_origin")
        #expect(try await page.post("/api/taps", json: body, headers: ["Sec-Fetch-Site": "cross-site"]).status == 403)
        let form = try await page.send(
            "POST", "/api/taps", body: Data("pickTaskId=x".utf8), headers: ["Content-Type": "text/plain"])
        #expect(form.status == 415)
        let queue = try await page.get("/api/queue")
        #expect(queue.text == "[]")
        #expect(await station.stop() == 0)
    }

    @Test func supportRetriesAndClearsDeadLettersFromThePage() async throws {
        let fixture = try await StationFixture(stationConfig: ["support": StationFixture.support])
        // A tap for a task the server does not know: refused (404), so it goes dead.
        #expect(
            try await fixture.scanpick(["tap", "pick", "task-unknown", "--outside-batch", "--org", "acme"]).status == 0)
        _ = try await fixture.scanpick(["drain"])
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let queue = try await page.get("/api/queue")
        let dead = try #require((try JSONSerialization.jsonObject(with: queue.body) as? [[String: Any]])?.first)
        #expect(dead["state"] as? String == "dead")
        let id = try #require(dead["id"] as? Int)
        // Support signs in: the station log records the person the sign-in names, never "the page";
        // a name alone, a made-up session or a wrong PIN is not a sign-in.
        for body: [String: Any] in [[:], ["by": "support-al"], ["session": "made-up"]] {
            let refused = try await page.post("/api/queue/\(id)/retry", json: body)
            #expect(refused.status == 403)
            #expect(refused.errorCode == "support_required")
        }
        let wrong = try await page.post("/api/support/sign-in", json: ["pin": "1234"])
        #expect(wrong.status == 403)
        #expect(wrong.errorCode == "support_refused")
        let al = try await page.post("/api/support/sign-in", json: ["pin": "4711", "name": "support-al"])
        #expect(al.status == 200)
        #expect(al.json["name"] as? String == "support-al")
        let alSession = try #require(al.json["session"] as? String)
        let jo = try await page.post("/api/support/sign-in", json: ["badge": "SUP-jo"])
        #expect(jo.json["name"] as? String == "jo")
        let joSession = try #require(jo.json["session"] as? String)
        #expect(try await page.post("/api/queue/\(id)/retry", json: ["session": alSession]).status == 200)
        _ = try await fixture.scanpick(["drain"])
        let cleared = try await page.post("/api/queue/\(id)/clear", json: ["session": joSession])
        #expect(cleared.status == 200)
        #expect(try await page.post("/api/queue/\(id)/clear", json: ["session": joSession]).status == 404)
        #expect(try await page.get("/api/queue").text == "[]")
        // Signed out, the session is no sign-in any more.
        #expect(try await page.post("/api/support/sign-out", json: ["session": joSession]).status == 200)
        #expect(try await page.post("/api/queue/\(id)/clear", json: ["session": joSession]).status == 403)
        #expect(await station.stop() == 0)
        let stationQueue = try ActionQueue(
            path: fixture.folder.file("station.sqlite"), extraMigrations: PickListCache.migrations)
        #expect(try stationQueue.log().map(\.actor) == ["jo", "support-al"])
        // The station's log says who signed in, and how, never the PIN or badge typed.
        let lines = station.logLines.filter { ($0["event"] as? String)?.hasPrefix("support_") == true }
        #expect(
            lines.map { $0["event"] as? String } == [
                "support_sign_in_refused", "support_signed_in", "support_signed_in",
            ])
        #expect(lines.map { $0["by"] as? String } == [nil, "support-al", "jo"])
        #expect(!station.standardError.contains("4711") && !station.standardError.contains("SUP-jo"))
    }

    /// Parking (an action a pause holds, moved to the dead letters) is support's too, from the page.
    @Test func supportParksAnActionAPauseHoldsFromThePage() async throws {
        let fixture = try await StationFixture(stationConfig: ["support": StationFixture.support])
        try fixture.setAcmeToken("not-acme's-token")
        #expect(try await fixture.scanpick(["tap", "pick", fixture.scenario.tasks[0]]).status == 0)
        #expect(try await fixture.scanpick(["drain"]).status == 3)  // 401: the queue waits, paused
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let held = try #require(
            (try JSONSerialization.jsonObject(with: try await page.get("/api/queue").body) as? [[String: Any]])?.first)
        #expect(held["state"] as? String == "pending")
        let id = try #require(held["id"] as? Int)
        #expect(try await page.post("/api/queue/\(id)/park", json: [:] as [String: Any]).status == 403)
        let signIn = try await page.post("/api/support/sign-in", json: ["pin": "4711", "name": "Sam"])
        let session = try #require(signIn.json["session"] as? String)
        #expect(try await page.post("/api/queue/\(id)/park", json: ["session": session]).status == 200)
        let parked = try #require(
            (try JSONSerialization.jsonObject(with: try await page.get("/api/queue").body) as? [[String: Any]])?.first)
        #expect(parked["state"] as? String == "dead")
        #expect(try await page.post("/api/queue/\(id)/park", json: ["session": session]).status == 409)  // not held now
        let log = try JSONSerialization.jsonObject(with: try await page.get("/api/log").body) as? [[String: Any]]
        #expect(log?.first?["event"] as? String == "park")
        #expect(log?.first?["by"] as? String == "Sam")
        #expect(await station.stop() == 0)
    }

    /// A code typed into the page by a handheld the station does not hold is a scan: the same
    /// checks, banner and log as the station's own scanner, and never a tap.
    @Test func aCodeTypedIntoThePageIsAScan() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let wrong = try await page.post("/api/scans", json: ["code": "SKU-7731"])
        #expect(wrong.status == 200)
        #expect(wrong.json["accepted"] as? Bool == false)
        #expect(wrong.json["message"] as? String == "✗ Wrong item: that is not SKU-A1 for A1")
        let right = try await page.post("/api/scans", json: ["code": "5901234123457"])  // B3's: scan to select
        #expect(right.json["accepted"] as? Bool == true)
        #expect(right.json["message"] as? String == "✓ SKU-B3 at B3: 1 of 2")
        let long = try await page.post("/api/scans", json: ["code": String(repeating: "7", count: 300)])
        #expect(long.status == 400)
        let last = try await page.get("/api/status").json["lastScan"] as? [String: Any]
        #expect(last?["message"] as? String == "✓ SKU-B3 at B3: 1 of 2")
        #expect(await station.stop() == 0)
        let scans = station.logLines.filter { $0["event"] as? String == "scan" }
        #expect(scans.map { $0["reason"] as? String } == ["mismatch", nil])
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [0, 1, 0])
        let queue = try await fixture.scanpick(["queue", "--json"])
        let kinds = (try JSONSerialization.jsonObject(with: Data(queue.standardOutput.utf8)) as? [[String: Any]])?
            .map { $0["kind"] as? String }
        #expect(kinds == ["scan"])
    }

    @Test func theLastScanIsShownOnThePage() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        station.scan("SKU-7731")  // no task of the batch has it: refused
        var last: [String: Any]?
        for _ in 0..<100 {
            last = try await page.get("/api/status").json["lastScan"] as? [String: Any]
            if last != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(last?["accepted"] as? Bool == false)
        #expect((last?["message"] as? String)?.contains("Wrong item") == true)
        #expect(await station.stop() == 0)
    }
}
