import Foundation
import Queue
import SQLiteStorage
import ScanPickClient
import Storage
import TestSupport
import Testing

@Suite struct ActionQueueTests {
    func queue() throws -> (ActionQueue, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let extra = Migration("test-rows-1", sql: "CREATE TABLE rows (task TEXT PRIMARY KEY, picked INTEGER NOT NULL)")
        return (try ActionQueue(path: folder.file("q.sqlite"), extraMigrations: [extra]), folder)
    }

    @Test func enqueueCommitsTheCallersChangeInTheSameTransaction() throws {
        let (queue, folder) = try queue()
        let action = try NewAction.pick(org: "acme", pickTaskId: "t1", location: "A1", qty: 2, worker: "w")
        try queue.enqueue(action) { db in try db.run("INSERT INTO rows VALUES ('t1', 2)") }
        // Seen from another connection at once: durable when enqueue returns.
        let other = try Database(path: folder.file("q.sqlite"))
        #expect(try other.row("SELECT picked FROM rows")?.int("picked") == 2)
        #expect(try other.row("SELECT COUNT(*) AS n FROM actions")?.int("n") == 1)

        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try queue.enqueue(NewAction.pick(org: "acme", pickTaskId: "t2", location: nil, qty: 1, worker: "w")) { db in
                try db.run("INSERT INTO rows VALUES ('t2', 1)")
                throw Refused()
            }
        }
        #expect(try other.row("SELECT COUNT(*) AS n FROM actions")?.int("n") == 1)
        #expect(try other.row("SELECT COUNT(*) AS n FROM rows")?.int("n") == 1)
    }

    @Test func actionsCarryTheirKeyInTheBodyAndAReadableLabel() throws {
        let (queue, folder) = try queue()
        defer { withExtendedLifetime(folder) {} }  // its folder is removed with it
        let scan = try NewAction.scan(
            org: "acme", pickTaskId: "t1", location: "A1", barcode: "036000291452", worker: "worker-003",
            scannedAt: Date(timeIntervalSince1970: 0))
        let id = try queue.enqueue(scan)
        let stored = try #require(try queue.action(id))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(stored.payload)) as? [String: String])
        #expect(body["idempotencyKey"] == stored.idempotencyKey)
        #expect(body["scannedAt"] == "1970-01-01T00:00:00.000Z")
        #expect(body["workerId"] == "worker-003")
        #expect(stored.label == "scan A1 · 036000291452")
        #expect(stored.state == .pending)
        #expect(UUID(uuidString: stored.idempotencyKey) != nil)
        let tap = try NewAction.setQty(org: "acme", pickTaskId: "t9", location: "C2", from: 1, to: 3, worker: "w")
        #expect(tap.label == "qty C2 · 1→3")
        #expect(tap.idempotencyKey != scan.idempotencyKey)
        #expect(try queue.tasksWithUnsentActions(org: "acme") == ["t1"])
    }

    /// A body that could never be sent as its action (empty, not JSON, another key) is refused at
    /// the enqueue, never queued to die later.
    @Test func anActionWhoseBodyIsNotItsOwnIsNeverQueued() throws {
        let (queue, folder) = try queue()
        defer { withExtendedLifetime(folder) {} }  // its folder is removed with it
        for payload in ["", "not json", #"{"idempotencyKey":"another","pickTaskId":"t1"}"#] {
            let action = NewAction(
                org: "acme", kind: .pick, pickTaskId: "t1", payload: Array(payload.utf8), idempotencyKey: "k-1",
                label: "pick t1 · ×1")
            #expect(throws: QueueError.badPayload("pick t1 · ×1")) { try queue.enqueue(action) }
        }
        #expect(try queue.actions().isEmpty)
    }

    /// A stored pause that cannot be read is an error to show, never read as "not paused".
    @Test func anUnreadableStoredPauseIsAnErrorNotAnOpenQueue() throws {
        let (queue, folder) = try queue()
        defer { withExtendedLifetime(folder) {} }  // its folder is removed with it
        try queue.database.write { db in
            _ = try db.run("INSERT INTO queue_state (key, value) VALUES ('pause', 'not a pause')")
        }
        #expect(throws: QueueError.self) { try queue.pauses() }
        try queue.resume()  // a corrected config clears it
        #expect(try queue.pauses().isEmpty)
    }

    /// Who acts is written in the station log as a name a person reads: no control or
    /// bidirectional characters that make it read as someone else.
    @Test func supportNamesKeepTheAPIsTextRules() {
        #expect(ActionQueue.isSupportName("support-jo"))
        #expect(ActionQueue.isSupportName("Jo Ørsted"))
        for bad in [
            "", "   ", "jo\u{202E}oj", "jo\u{2066}", "jo\u{2028}x", "jo\nx", "jo\u{85}",
            String(repeating: "j", count: 65),
        ] {
            #expect(!ActionQueue.isSupportName(bad), "\(bad.debugDescription)")
        }
    }

    @Test func sentActionsArePrunedAfterTheirRetention() throws {
        let (queue, folder) = try queue()
        defer { withExtendedLifetime(folder) {} }  // its folder is removed with it
        let id = try queue.enqueue(NewAction.pick(org: "a", pickTaskId: "t", location: nil, qty: 1, worker: "w"))
        let now = Date()
        // Record a delivery the way the drainer does.
        try queue.database.write { db in
            _ = try db.run(
                "UPDATE actions SET state = 'sent', sent_at = ? WHERE id = ?", [now.addingTimeInterval(-7200), id])
        }
        #expect(try queue.pruneSent(olderThan: 3 * 3600, now: now) == 0)
        #expect(try queue.pruneSent(olderThan: 3600, now: now) == 1)
        #expect(try queue.actions().isEmpty)
    }

    @Test func theQueuesFilesAreTheStationUsersAlone() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("var/station.sqlite")
        func mode(_ file: String) -> mode_t {
            var info = stat()
            return stat(file, &info) == 0 ? info.st_mode & 0o777 : 0o7777
        }
        let queue = try ActionQueue(path: path)
        _ = try queue.enqueue(.pick(org: "acme", pickTaskId: "t1", location: nil, qty: 1, worker: "w"))
        let transport = ScanPickHTTPClient(
            server: URL(string: "http://127.0.0.1:9")!, tokens: ["acme": "t"], timeout: 1)
        _ = try await Drainer(queue: queue, transport: transport, backoff: BackoffPolicy(initial: 1, cap: 2))
            .drainPass()
        for file in [path, path + "-wal", path + "-shm", path + ".drain-lock"] {
            #expect(mode(file) == 0o600, "\(file)")
        }
        // A file an older scanpick left readable by others is tightened when the queue opens.
        chmod(path, 0o644)
        _ = try ActionQueue(path: path)
        #expect(mode(path) == 0o600)
    }
}

@Suite struct BackoffAndOutcomeTests {
    @Test func backoffDoublesToTheCapWithFullJitterAndRetryAfterAsAFloor() {
        let policy = BackoffPolicy(initial: 2, cap: 60)
        #expect((1...7).map { policy.ceiling(afterTries: $0) } == [2, 4, 8, 16, 32, 60, 60])
        #expect(policy.delay(afterTries: 3, retryAfter: nil, unitRandom: 0.25) == 2)
        #expect(policy.delay(afterTries: 3, retryAfter: nil, unitRandom: 0) == 0)
        #expect(policy.delay(afterTries: 1, retryAfter: 30, unitRandom: 1) == 30)
        #expect(policy.delay(afterTries: 1_000, retryAfter: nil, unitRandom: 1) == 60)
    }

    @Test func outcomesFollowTheBrief() {
        func classify(
            _ status: Int, _ body: String = "{}", retryAfter: String? = nil,
            headers: [String: String] = ["content-type": "application/json", "idempotency-key": "k"]
        ) -> DeliveryOutcome {
            var fields = headers
            fields["retry-after"] = retryAfter
            return DeliveryOutcome.classify(
                status: status, headers: fields, body: Data(body.utf8), sentKey: "k",
                now: Date(timeIntervalSince1970: 0))
        }
        #expect(classify(200) == .delivered(status: 200))
        #expect(classify(201) == .delivered(status: 201))
        for transient in [408, 425, 429, 500, 502, 503, 504] {
            guard case .transient = classify(transient) else {
                Issue.record("\(transient) must be transient")
                continue
            }
        }
        guard case .transient(_, _, let wait) = classify(409, #"{"error":"request_in_progress","message":"m"}"#) else {
            Issue.record("409 request_in_progress must be transient")
            return
        }
        #expect(wait == nil)
        // Retry-After is honoured up to an hour; a hostile or broken one never parks the queue for
        // good (or overflows the sleep's timer).
        for (header, expected) in [("120", 120.0), ("inf", 3600), ("1e300", 3600), ("nan", nil), ("-1", nil)] {
            guard case .transient(_, _, let waited) = classify(503, retryAfter: header) else {
                Issue.record("503 must be transient")
                continue
            }
            #expect(waited == expected, "Retry-After: \(header)")
        }
        for refused in [400, 410, 422] {
            guard case .refused = classify(refused, #"{"error":"invalid_field","message":"m"}"#) else {
                Issue.record("\(refused) must be refused")
                continue
            }
        }
        // A 404 for a resource is the action's; for a route (or from something else), the station's.
        #expect(
            classify(404, #"{"error":"not_found","message":"pick task t does not exist"}"#)
                == .refused(status: 404, reason: "not_found: pick task t does not exist"))
        // A refusal of the station itself pauses the queue; nothing goes dead for it.
        for (status, body, code) in [
            (401, "{}", "unauthorized"), (403, "{}", "forbidden"),
            (404, #"{"error":"no_such_route","message":"m"}"#, "no_such_route"),
            (404, "<html>Not Found</html>", "no_such_route"),
        ] {
            guard case .paused(let attention, status) = classify(status, body) else {
                Issue.record("\(status) \(body) must pause the queue")
                continue
            }
            #expect(attention.code == code)
        }
        #expect(classify(409, #"{"error":"conflict","message":"m"}"#) == .refused(status: 409, reason: "conflict: m"))
        // A worker id the server refuses is the station's config, not the action's: a pause.
        guard
            case .paused(let worker, 400) = classify(
                400, #"{"error":"invalid_field","message":"workerId must not be empty"}"#)
        else {
            Issue.record("a refused workerId must pause the queue")
            return
        }
        #expect(worker.code == "invalid_worker")
        guard
            case .paused(let clock, 422) = classify(
                422,
                #"{"error":"clock_skew","message":"the station's time 2000-01-01T00:00:00.000Z is more than 24 h …"}"#)
        else {
            Issue.record("clock_skew must pause the queue")
            return
        }
        #expect(clock.code == "clock_skew")
        #expect(worker.message.contains("fix `worker` in the station config"))
        #expect(
            classify(400, #"{"error":"invalid_field","message":"pickTaskId must not be empty"}"#)
                == .refused(status: 400, reason: "invalid_field: pickTaskId must not be empty"))
        // Only the API's own answers count: a 2xx that is not JSON or does not echo the action's key
        // (a captive portal, another web application), a redirect, a 405, or a 4xx outside the API's
        // error shape pause the queue; nothing goes sent or dead for them.
        let html = ["content-type": "text/html"]
        for (status, body, headers, code) in [
            (200, "<html>Welcome to the guest Wi-Fi</html>", html, "not_the_api"),
            (200, "{}", ["content-type": "application/json"], "not_the_api"),
            (200, "{}", ["content-type": "application/json", "idempotency-key": "other"], "not_the_api"),
            (201, "{}", ["idempotency-key": "k"], "not_the_api"),
            (301, "", ["location": "https://example.test/api/picking/pick"], "redirected"),
            (308, "", [:], "redirected"),
            (
                405, #"{"error":"method_not_allowed","message":"use GET here"}"#, ["content-type": "application/json"],
                "method_not_allowed"
            ),
            (405, "<html>405 Not Allowed</html>", html, "method_not_allowed"),
            (400, "<html>Bad Request</html>", html, "not_the_api"),
            (422, "{}", ["content-type": "application/json"], "not_the_api"),
        ] {
            guard case .paused(let attention, status) = classify(status, body, headers: headers) else {
                Issue.record("\(status) \(body) \(headers) must pause the queue")
                continue
            }
            #expect(attention.code == code, "\(status) \(body)")
        }
        #expect(
            classify(200, "[]", headers: ["content-type": "application/json; charset=utf-8", "idempotency-key": "k"])
                == .delivered(status: 200))
        // A proxy's 502 page is still the network's trouble: transient, whatever its body.
        guard case .transient = classify(502, "<html>Bad Gateway</html>", headers: html) else {
            Issue.record("a 502 page must be transient")
            return
        }
        #expect(
            classify(422, #"{"error":"over_pick","message":"too many"}"#)
                == .refused(status: 422, reason: "over_pick: too many"))
        #expect(classify(429, retryAfter: "12") == .transient(status: 429, reason: "{}", retryAfter: 12))
        #expect(
            classify(503, retryAfter: "Thu, 01 Jan 1970 00:01:00 GMT")
                == .transient(status: 503, reason: "{}", retryAfter: 60))
    }
}
