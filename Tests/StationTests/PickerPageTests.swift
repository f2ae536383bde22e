import Foundation
import Queue
import TestSupport
import Testing

@testable import Station

/// The picker's whole job from the page, against a real server and a real `scanpick station`:
/// pushed events, opening a batch (from the list, offline from the cache, by scanning its label),
/// signing in (badge or name) and support's retry-all and station log.
@Suite struct PickerPageTests {
    /// Opens `GET /api/events` on the station's page over a raw socket.
    func listen(_ station: StationProcess) throws -> RawConnection {
        let port = UInt16(station.page.port ?? 0)
        let connection = try RawConnection(port: port)
        connection.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
        return connection
    }

    @Test func theEventStreamPushesEachScanAndBoundsItsListeners() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let events = try listen(station)
        let head = try #require(events.read(until: "event: worker", timeout: .seconds(10)))
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("content-type: text/event-stream"))
        #expect(head.contains("event: pickList"))
        #expect(head.contains("event: status"))

        station.scan("036000291452")  // A1: counted
        let beforeScan = try #require(events.read(until: "event: scan\n", timeout: .seconds(5)))
        let scan = try #require(events.read(until: "\n\n", timeout: .seconds(5)))
        #expect(scan.contains("\"feedback\":\"accepted\""))
        // The pick list with the count is pushed after the scan's event, or just before it when the
        // publisher looked between the scan's write and its event.
        if !beforeScan.contains("\"qtyPicked\":1") {
            #expect(events.read(until: "event: pickList", timeout: .seconds(5)) != nil)
            #expect(try #require(events.read(until: "\n\n", timeout: .seconds(5))).contains("\"qtyPicked\":1"))
        }
        station.scan("SKU-7731")  // no task has it: refused, and it sounds so
        #expect(events.read(until: "event: scan\n", timeout: .seconds(5)) != nil)
        let refused = try #require(events.read(until: "\n\n", timeout: .seconds(5)))
        #expect(refused.contains("\"feedback\":\"refused\""))

        // At most 16 listeners: the next is turned away, with a way to carry on.
        var others: [RawConnection] = []
        for _ in 1..<PageEvents.maxClients {
            let other = try listen(station)
            #expect(other.read(until: "event: worker", timeout: .seconds(10)) != nil)
            others.append(other)
        }
        let turnedAway = try listen(station)
        let answer = try #require(turnedAway.read(until: "\r\n\r\n", timeout: .seconds(5)))
        #expect(answer.hasPrefix("HTTP/1.1 503"))
        // One that leaves makes room for another once the station notices (at its next event).
        others.removeLast()
        station.scan("036000291452")
        var admitted = false
        for _ in 0..<50 where !admitted {
            let again = try listen(station)
            admitted = again.read(until: "\r\n\r\n", timeout: .seconds(5))?.hasPrefix("HTTP/1.1 200") == true
            if !admitted { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(admitted)
        #expect(await station.stop() == 0)
    }

    @Test func aBatchIsOpenedFromThePageAndOfflineFromTheCache() async throws {
        let fixture = try await StationFixture(openBatch: false)
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let id = fixture.scenario.batchId
        let online = try await page.get("/api/batches")
        #expect(online.status == 200)
        #expect(online.json["fromCache"] as? Bool == false)
        #expect(online.json["org"] as? String == "acme")
        let listed = online.json["batches"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["id"] as? String } == [id])
        #expect(listed.first?["tasks"] as? Int == 3)

        let foreign = try await page.post("/api/batches/\(id)/open", json: ["org": "globex"])
        #expect(foreign.status == 404)
        #expect(foreign.json["error"] as? String == "unknown_organisation")
        let opened = try await page.post("/api/batches/\(id)/open", json: [:] as [String: Any])
        #expect(opened.status == 200)
        #expect(opened.json["batchId"] as? String == id)
        #expect((opened.json["tasks"] as? [Any])?.count == 3)

        try await fixture.server.stop()
        let offline = try await page.get("/api/batches")
        #expect(offline.status == 200)
        #expect(offline.json["fromCache"] as? Bool == true)
        #expect((offline.json["batches"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        #expect(try await page.post("/api/batches/\(id)/open", json: [:] as [String: Any]).status == 200)
        let never = try await page.post("/api/batches/batch-never-seen/open", json: [:] as [String: Any])
        #expect(never.status == 503)
        #expect(never.json["error"] as? String == "server_needed")
        let hostile = try await page.post("/api/batches/a%20b/open", json: [:] as [String: Any])
        #expect(hostile.status == 400)
        #expect(await station.stop() == 0)
    }

    @Test func scanningABatchLabelOpensThatBatch() async throws {
        let fixture = try await StationFixture(openBatch: false)
        try fixture.rewriteConfig { $0["batchLabelPattern"] = "^BATCH-(.+)$" }
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        station.scan("BATCH-\(fixture.scenario.batchId)")
        let opened = try await eventually {
            try await page.get("/api/pick-list").json["batchId"] as? String == fixture.scenario.batchId
        }
        #expect(opened)
        station.scan("036000291452")  // and the next scan counts on it
        #expect(
            try await eventually { try await fixture.pickList()[fixture.scenario.tasks[0]]?["qtyPicked"] as? Int == 1 })
        station.scan("BATCH-../x")  // not a batch id: refused, nothing asked of the server
        #expect(await eventually { station.logLines.filter { $0["event"] as? String == "scan" }.count == 3 })
        #expect(await station.stop() == 0)
        let scans = station.logLines.filter { $0["event"] as? String == "scan" }
        #expect(scans.map { $0["reason"] as? String } == ["batch_label", nil, "unacceptable"])
        #expect(station.logLines.contains { $0["event"] as? String == "batch_opened" })
    }

    @Test func aBadgeOrANameSignsInAndEveryActionCarriesThatWorker() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig {
            $0["requireSignIn"] = true
            $0["workerBadgePattern"] = "^W-([0-9]{3,6})$"
            $0["workers"] = [["id": "w-7", "name": "Ana"]]
        }
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let (a1, b3) = (fixture.scenario.tasks[0], fixture.scenario.tasks[1])
        let nobody = try await page.get("/api/workers")
        #expect(nobody.json["requireSignIn"] as? Bool == true)
        #expect(nobody.json["signedIn"] is NSNull)
        let refused = try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1])
        #expect(refused.status == 403)
        #expect(refused.json["error"] as? String == "sign_in_required")

        station.scan("036000291452")  // refused: nobody is signed in
        station.scan("W-0042")  // a badge: worker 0042 signs in
        #expect(try await eventually { try await page.get("/api/workers").json["signedIn"] is [String: Any] })
        #expect(
            (try await page.get("/api/workers").json["signedIn"] as? [String: Any])?["id"] as? String == "0042")
        station.scan("036000291452")  // counted, for 0042
        #expect(try await eventually { try await fixture.pickList()[a1]?["qtyPicked"] as? Int == 1 })

        let chosen = try await page.post("/api/sign-in", json: ["workerId": "w-7"])
        #expect(chosen.status == 200)
        #expect((chosen.json["signedIn"] as? [String: Any])?["name"] as? String == "Ana")
        #expect(try await page.post("/api/taps", json: ["pickTaskId": b3, "kind": "pick", "qty": 1]).status == 200)
        #expect(try await page.post("/api/sign-in", json: ["workerId": "w-unknown"]).status == 404)
        #expect(try await page.post("/api/sign-out", json: [:] as [String: Any]).status == 200)
        #expect(try await page.post("/api/taps", json: ["pickTaskId": b3, "kind": "pick", "qty": 1]).status == 403)
        #expect(await station.stop() == 0)

        let scans = station.logLines.filter { $0["event"] as? String == "scan" }
        #expect(scans.map { $0["reason"] as? String } == ["sign_in_required", "worker_badge", nil])
        // What reaches the server: the scan carries 0042, the tap w-7.
        let queue = try ActionQueue(
            path: fixture.folder.file("station.sqlite"), extraMigrations: PickListCache.migrations)
        let workers = try queue.actions().map { action -> String? in
            let body = try JSONSerialization.jsonObject(with: Data(action.payload)) as? [String: Any]
            return body?["workerId"] as? String
        }
        #expect(workers == ["0042", "w-7"])
        #expect(try await fixture.scanpick(["drain"]).status == 0)
        #expect(try await fixture.picked() == [1, 1, 0])
    }

    @Test func supportRetriesEveryDeadLetterOfOneKindAndReadsTheLog() async throws {
        let fixture = try await StationFixture(stationConfig: ["support": StationFixture.support])
        for task in ["task-gone-1", "task-gone-2"] {
            let tap = try await fixture.scanpick(["tap", "pick", task, "--org", "acme", "--outside-batch"])
            #expect(tap.status == 0, "\(tap.standardError)")
        }
        #expect(try await fixture.scanpick(["drain"]).status == 0)  // both refused: 404, dead letters
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let dead = try await page.get("/api/queue")
        let rows = (try JSONSerialization.jsonObject(with: Data(dead.text.utf8)) as? [[String: Any]]) ?? []
        #expect(rows.map { $0["lastStatus"] as? Int } == [404, 404])

        let nameless = try await page.post("/api/queue/retry-all", json: ["status": 404, "by": "support-al"])
        #expect(nameless.status == 403)
        #expect(nameless.json["error"] as? String == "support_required")
        let signIn = try await page.post("/api/support/sign-in", json: ["badge": "SUP-support-al"])
        let session = try #require(signIn.json["session"] as? String)
        let retried = try await page.post("/api/queue/retry-all", json: ["status": 404, "session": session])
        #expect(retried.status == 200)
        #expect((retried.json["retried"] as? [Int])?.count == 2)
        let none = try await page.post("/api/queue/retry-all", json: ["status": 401, "session": session])
        #expect((none.json["retried"] as? [Int]) == [])

        let log = try await page.get("/api/log")
        let entries = (try JSONSerialization.jsonObject(with: Data(log.text.utf8)) as? [[String: Any]]) ?? []
        #expect(entries.map { $0["event"] as? String } == ["retry", "retry"])
        #expect(entries.allSatisfy { $0["by"] as? String == "support-al" && $0["at"] is String })
        #expect(await station.stop() == 0)
    }
}
