import Foundation
import SQLiteStorage
import Station
import Storage
import TestSupport
import Testing
import Wire

@testable import Queue

/// A station database written by a scanpick from before `queue-2` (times as REAL seconds, a pause's
/// retry time as seconds since 2001) opens with today's code, upgraded in place: every row, id and
/// key kept, every time now Timestamp text.
@Suite struct QueueSchemaUpgradeTests {
    /// What an older scanpick left: its schema, three actions (one deleted after them, so the id
    /// sequence is ahead of the rows), a pause, the pick list, the log, and its migration times.
    func oldStationDatabase(_ path: String) throws {
        let db = try Database(path: path)
        let old =
            QueueSchema.migrations.filter { $0.identifier == "queue-1" }
            + PickListCache.migrations.filter { $0.identifier == "picklist-1" }
        #expect(old.count == 2)
        try Migration.apply(old, to: db)
        try db.run("UPDATE schema_migrations SET applied_at = '2026-11-30T10:00:00Z'")
        let insert = """
            INSERT INTO actions (id, org, kind, pick_task_id, label, payload, idempotency_key, state, tries,
                created_at, updated_at, next_attempt_at, last_status, sent_at)
            VALUES (?, 'acme', 'pick', ?, 'pick A1 · ×1', ?, ?, ?, ?, '2027-01-15T08:00:00.000Z',
                '2027-01-15T08:00:00.000Z', ?, ?, ?)
            """
        let payload = { (key: String) in Array(#"{"idempotencyKey":"\#(key)"}"#.utf8) }
        try db.run(insert, [1, "t1", payload("k1"), "k1", "pending", 1, 1_800_000_002.5, 503, Double?.none])
        try db.run(insert, [2, "t2", payload("k2"), "k2", "sent", 1, 0.0, 200, 1_800_000_000.25])
        try db.run(insert, [3, "t1", payload("k3"), "k3", "dead", 2, 0.0, 422, Double?.none])
        try db.run(insert, [4, "t1", payload("k4"), "k4", "dead", 1, 0.0, 422, Double?.none])
        try db.run("DELETE FROM actions WHERE id = 4")  // cleared by support: its id is never reused
        try db.run(
            "INSERT INTO station_log (at, event, action_id, actor, detail) VALUES (?, 'clear', 4, 'jo', '{}')",
            ["2027-01-15T08:00:01.000Z"])
        // The pause as an older scanpick encoded it: retryAt in seconds since 2001.
        let pause = QueuePause(
            attention: Attention(code: "unauthorized", message: "the server refused the token"),
            since: "2027-01-15T08:00:00.000Z", retryAt: Date(timeIntervalSince1970: 1_800_000_060))
        try db.run(
            "INSERT INTO queue_state (key, value) VALUES ('pause', ?)",
            [String(decoding: try JSONEncoder().encode(pause), as: UTF8.self)])
        try db.run("INSERT INTO queue_state (key, value) VALUES ('lastSyncAt', '2027-01-15T08:00:00.250Z')")
        try db.run(
            """
            INSERT INTO pick_list_batch (slot, org, batch_id, opened_at, refreshed_at)
            VALUES (1, 'acme', 'b1', '2027-01-15T07:00:00.000Z', '2027-01-15T07:00:00.000Z')
            """)
        try db.run(
            """
            INSERT INTO pick_list_tasks (org, id, batch_id, order_id, line_id, sku, location, barcode,
                qty_required, qty_picked, qty_locked, position)
            VALUES ('acme', 't1', 'b1', 'o1', 'l1', 'SKU', 'A1', '036000291452', 3, 1, 0, 0)
            """)
    }

    @Test func anOldStationDatabaseUpgradesInPlaceWithEveryRow() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("station.sqlite")
        try oldStationDatabase(path)

        let queue = try ActionQueue(path: path, extraMigrations: PickListCache.migrations)
        let actions = try queue.actions()
        #expect(actions.map(\.id) == [1, 2, 3])
        #expect(actions.map(\.idempotencyKey) == ["k1", "k2", "k3"])
        #expect(actions.map(\.state) == [.pending, .sent, .dead])
        #expect(actions.map(\.tries) == [1, 1, 2])
        #expect(actions.map(\.lastStatus) == [503, 200, 422])
        #expect(actions[0].nextAttemptAt == Date(timeIntervalSince1970: 1_800_000_002.5))
        #expect(actions[1].nextAttemptAt == nil && actions[2].nextAttemptAt == nil)  // 0 was "at once"
        #expect(actions[0].createdAt == "2027-01-15T08:00:00.000Z")

        let stored = try queue.database.read { db in
            try db.rows("SELECT typeof(next_attempt_at) AS a, sent_at FROM actions ORDER BY id").map {
                [try $0.string("a"), try $0.optionalString("sent_at") ?? "null"]
            }
        }
        #expect(stored == [["text", "null"], ["null", "2027-01-15T08:00:00.250Z"], ["null", "null"]])
        // Sent times compare as times: the refresh's "sent since" and the pruning both read them.
        let sentSince = try queue.database.read { db in
            try [1_800_000_000.2, 1_800_000_000.3].map { seconds in
                try ActionQueue.tasksWithUnsentActions(
                    org: "acme", sentSince: Date(timeIntervalSince1970: seconds), in: db)
            }
        }
        #expect(sentSince == [["t1", "t2"], ["t1"]])  // t1's action 1 is still pending
        #expect(try queue.pruneSent(olderThan: 10, now: Date(timeIntervalSince1970: 1_800_000_010.2)) == 0)
        #expect(try queue.pruneSent(olderThan: 10, now: Date(timeIntervalSince1970: 1_800_000_010.3)) == 1)

        let pause = try #require(try queue.pause())
        #expect(pause.retryAt == Date(timeIntervalSince1970: 1_800_000_060))
        #expect(pause.attention.code == "unauthorized")
        #expect(try queue.counts().lastSyncAt == "2027-01-15T08:00:00.250Z")
        #expect(try queue.log().map(\.actionId) == [4])
        #expect(try PickListCache(queue: queue).tasks().map(\.qtyPicked) == [1])
        #expect(try PickListCache(queue: queue).tasks().map(\.lot) == [nil])
        // The upgraded cache keeps an order line's lot, best-before date and case.
        let gs1Task = PickTask(
            id: "t9", batchId: "b9", orderId: "o9", lineId: "l1", sku: "SKU-G1", location: "G1",
            barcode: "9501101530003",
            qtyRequired: 30, qtyPicked: 0, qtyLocked: 0, lot: "L123", bestBefore: "2027-01-01",
            caseGtin: "19501101530000", caseQty: 12)
        try PickListCache(queue: queue).store(Batch(id: "b9", tasks: [gs1Task]), org: "acme")
        #expect(try PickListCache(queue: queue).tasks() == [gs1Task])

        // The id sequence kept its high-water mark: the deleted #4 is never handed out again.
        let next = try queue.enqueue(NewAction.pick(org: "acme", pickTaskId: "t1", location: "A1", qty: 1, worker: "w"))
        #expect(next == 5)
        // `queue-3` takes the two new kinds, and kept the sequence through its rebuild too.
        let short = try queue.enqueue(
            NewAction.short(org: "acme", pickTaskId: "t1", location: "A1", qty: 1, reason: .damaged, worker: "w"))
        let close = try queue.enqueue(NewAction.closeBatch(org: "acme", batchId: "b1", worker: "w"))
        #expect(short == 6 && close == 7)
        #expect(try queue.actions().suffix(2).map(\.kind) == [.short, .closeBatch])
        #expect(try queue.action(close)?.path == "/api/batches/b1/close")
        // `picklist-4`: the product's name, the tote and the units short are kept.
        var named = gs1Task
        named.name = "COFFEE ARABICA 1KG"
        named.tote = 3
        named.qtyShort = 2
        try PickListCache(queue: queue).store(Batch(id: "b9", tasks: [named]), org: "acme")
        #expect(try PickListCache(queue: queue).tasks() == [named])
        let applied = try queue.database.read { db in
            try db.rows("SELECT identifier, applied_at FROM schema_migrations ORDER BY identifier").map {
                (try $0.string("identifier"), try $0.date("applied_at"))
            }
        }
        #expect(
            applied.map(\.0) == [
                "picklist-1", "picklist-2", "picklist-3", "picklist-4", "queue-1", "queue-2", "queue-3", "refusals-1",
            ])
        #expect(applied[0].1 == Date(timeIntervalSince1970: 1_796_032_800))  // 2026-11-30T10:00:00Z
        let texts = try queue.database.read { db in
            try db.rows("SELECT applied_at FROM schema_migrations").map { try $0.string("applied_at") }
        }
        #expect(texts.allSatisfy { $0.utf8.count == 24 && $0.hasSuffix("Z") }, "\(texts)")
    }

    @Test func aQueueFromBeforeTheUpgradeCanStillBeSalvagedAsItIs() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("station.sqlite")
        try oldStationDatabase(path)
        // Salvage reads a damaged file without migrating it: the old representation must read.
        let salvage = try ActionQueue.salvage(path: path)
        #expect(salvage.actions.map(\.idempotencyKey) == ["k1", "k3"])
        #expect(salvage.unreadable.isEmpty)
    }

    @Test func aPausedQueueStaysPausedAndAWaitingActionWaitsAcrossTheUpgrade() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("station.sqlite")
        try oldStationDatabase(path)
        let queue = try ActionQueue(path: path, extraMigrations: PickListCache.migrations)
        guard
            case .paused(let pause) = try queue.claimHead(
                now: Date(timeIntervalSince1970: 1_800_000_001), honouringBackoff: true, longestWait: 3600)
        else {
            Issue.record("the old pause was lost")
            return
        }
        #expect(pause.retryAt == Date(timeIntervalSince1970: 1_800_000_060))
        try queue.resume()
        let waiting = try queue.claimHead(
            now: Date(timeIntervalSince1970: 1_800_000_001), honouringBackoff: true, longestWait: 3600)
        guard case .notDue(let until) = waiting else {
            Issue.record("the backoff of action 1 was lost: \(String(describing: waiting))")
            return
        }
        #expect(until == Date(timeIntervalSince1970: 1_800_000_002.5))
        guard
            case .due(let due) = try queue.claimHead(
                now: Date(timeIntervalSince1970: 1_800_000_003), honouringBackoff: true, longestWait: 3600)
        else {
            Issue.record("action 1 did not come due")
            return
        }
        #expect(due.id == 1)
    }
}
