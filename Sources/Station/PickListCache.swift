import Foundation
import Queue
import SQLiteStorage
import Storage
import Timestamps
import Wire

/// The station's copy of the batches it has opened, in the same SQLite file as the action queue,
/// so a tap or scan changes its row and queues its action in one transaction. One batch at a time is
/// the open one; the active task is the one the picker selected, or else the first incomplete task
/// in pick order.
///
///     let cache = PickListCache(queue: queue)
///     try cache.store(batch, org: "acme")      // from the server
///     let task = try cache.activeTask()
public final class PickListCache: Sendable {
    public let queue: ActionQueue

    /// The cache's tables, applied with the queue's when the station database opens.
    public static let migrations = [
        Migration(
            "picklist-1",
            sql: """
                CREATE TABLE pick_list_batch (
                    slot INTEGER PRIMARY KEY CHECK (slot = 1), org TEXT NOT NULL, batch_id TEXT NOT NULL,
                    opened_at TEXT NOT NULL, refreshed_at TEXT NOT NULL, selected_task_id TEXT);
                CREATE TABLE pick_list_tasks (
                    org TEXT NOT NULL, id TEXT NOT NULL, batch_id TEXT NOT NULL, order_id TEXT NOT NULL,
                    line_id TEXT NOT NULL, sku TEXT NOT NULL, location TEXT NOT NULL, barcode TEXT NOT NULL,
                    qty_required INTEGER NOT NULL, qty_picked INTEGER NOT NULL, qty_locked INTEGER NOT NULL,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (org, id));
                CREATE INDEX pick_list_tasks_by_batch ON pick_list_tasks (org, batch_id, position);
                """),
        // Batches the server has closed (complete, or closed by a supervisor), and the worker signed
        // in at the station's page (badge or name), whose id every tap and scan then carries.
        Migration(
            "picklist-2",
            sql: """
                CREATE TABLE pick_list_closed (
                    org TEXT NOT NULL, batch_id TEXT NOT NULL, closed_at TEXT, PRIMARY KEY (org, batch_id));
                CREATE TABLE station_worker (
                    slot INTEGER PRIMARY KEY CHECK (slot = 1), worker_id TEXT NOT NULL, name TEXT,
                    signed_in_at TEXT NOT NULL);
                """),
        // An order line's lot, earliest accepted expiry, case GTIN-14 and units per case (NULL: none).
        Migration(
            "picklist-3",
            sql: """
                ALTER TABLE pick_list_tasks ADD COLUMN lot TEXT;
                ALTER TABLE pick_list_tasks ADD COLUMN best_before TEXT;
                ALTER TABLE pick_list_tasks ADD COLUMN case_gtin TEXT;
                ALTER TABLE pick_list_tasks ADD COLUMN case_qty INTEGER;
                """),
        // The product's name (NULL: none), the order's tote (NULL: the server did not say) and the
        // units reported short (a task is done when picked + short reach required).
        Migration(
            "picklist-4",
            sql: """
                ALTER TABLE pick_list_tasks ADD COLUMN name TEXT;
                ALTER TABLE pick_list_tasks ADD COLUMN tote INTEGER;
                ALTER TABLE pick_list_tasks ADD COLUMN qty_short INTEGER NOT NULL DEFAULT 0;
                """),
        // Which of the server's later refusals the picker has acknowledged (PickerRefusals).
        PickerRefusals.migration,
    ]

    public init(queue: ActionQueue) { self.queue = queue }

    /// The open batch: its organisation and id, or nil.
    public func openBatch() throws -> (org: String, batchId: String)? {
        try queue.database.read { db in try Self.openBatch(db) }
    }

    /// The open batch of the station database at `path`, read on a read-only connection that
    /// creates and migrates nothing (nil when the file or the table does not exist yet): for
    /// `config check`, which must not change a running station's files.
    public static func openBatch(inFile path: String) throws -> (org: String, batchId: String)? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let db = try Database(readingOnly: path)
        guard try db.row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pick_list_batch'") != nil
        else { return nil }
        return try openBatch(db)
    }

    /// The batch of `org` the cache holds task `taskId` in (the open one, or one opened before), or
    /// nil when it holds no such task: the server gave this station that task once.
    public func batchId(ofTask taskId: String, org: String) throws -> String? {
        try queue.database.read { db in
            try db.row("SELECT batch_id FROM pick_list_tasks WHERE org = ? AND id = ?", [org, taskId])?.string(
                "batch_id")
        }
    }

    /// The open batch read on `db` (inside the caller's transaction).
    static func openBatch(_ db: Database) throws -> (org: String, batchId: String)? {
        try db.row("SELECT org, batch_id FROM pick_list_batch").map {
            (try $0.string("org"), try $0.string("batch_id"))
        }
    }

    /// The largest quantity the cache takes from the server: a count past it is refused as
    /// impossible, so no sum of a count and a tap (at most 100 000) can overflow.
    public static let quantityLimit = 1_000_000_000

    /// Stores the server's view of `batch` and makes it the open batch (the picker opened it). A row
    /// keeps its local picked and short counts when it has an action not yet confirmed sent, or one
    /// sent after the view was asked for (`fetchedAt`): the server does not get to overwrite a tap it
    /// has not seen. Decided in the same transaction as the write, so a tap queued meanwhile cannot
    /// slip between. A batch the station closed stays closed whatever the server still says (its
    /// close is on its way).
    public func store(_ batch: Batch, org: String, fetchedAt: Date = .distantPast, now: Date = Date()) throws {
        try store(batch, org: org, fetchedAt: fetchedAt, now: now, opening: true)
    }

    /// Stores the server's view of `batch` as ``store(_:org:fetchedAt:now:)`` does, but leaves the
    /// open batch as it is: a refresh asked for while `batch` was open may arrive after the picker
    /// opened another one, and must not reopen it. Decided in the write's transaction; returns
    /// whether `batch` is still the open batch.
    @discardableResult
    public func refresh(_ batch: Batch, org: String, fetchedAt: Date, now: Date = Date()) throws -> Bool {
        try store(batch, org: org, fetchedAt: fetchedAt, now: now, opening: false)
    }

    @discardableResult
    private func store(_ batch: Batch, org: String, fetchedAt: Date, now: Date, opening: Bool) throws -> Bool {
        for task in batch.tasks {
            for (name, value) in [
                ("qtyRequired", task.qtyRequired), ("qtyPicked", task.qtyPicked), ("qtyLocked", task.qtyLocked),
                ("caseQty", task.caseQty ?? 1), ("qtyShort", task.qtyShort), ("tote", task.tote ?? 1),
            ] where !(0...Self.quantityLimit).contains(value) {
                throw CacheError.impossibleQuantity(task: task.id, field: name, value: value)
            }
            // Shown on the page and printed by `pick-list`: the server's rule for text, checked again.
            if let name = task.name {
                do {
                    try FieldRules.text(name, field: "name")
                } catch {
                    throw CacheError.impossibleText(task: task.id, field: "name", problem: error.problem)
                }
            }
        }
        return try queue.transaction { db in
            let unsent = try ActionQueue.tasksWithUnsentActions(org: org, sentSince: fetchedAt, in: db)
            for (position, task) in batch.tasks.enumerated() {
                try db.run(
                    """
                    INSERT INTO pick_list_tasks (org, id, batch_id, order_id, line_id, sku, location, barcode,
                        qty_required, qty_picked, qty_locked, position, lot, best_before, case_gtin, case_qty,
                        name, tote, qty_short)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
                    ON CONFLICT (org, id) DO UPDATE SET sku = excluded.sku, location = excluded.location,
                        barcode = excluded.barcode, qty_required = excluded.qty_required, lot = excluded.lot,
                        best_before = excluded.best_before, case_gtin = excluded.case_gtin,
                        case_qty = excluded.case_qty, name = excluded.name, tote = excluded.tote,
                        qty_locked = excluded.qty_locked, position = excluded.position,
                        qty_picked = CASE WHEN ?20 THEN qty_picked ELSE excluded.qty_picked END,
                        qty_short = CASE WHEN ?20 THEN qty_short ELSE excluded.qty_short END
                    """,
                    [
                        org, task.id, batch.id, task.orderId, task.lineId, task.sku, task.location, task.barcode,
                        task.qtyRequired, task.qtyPicked, task.qtyLocked, position, task.lot, task.bestBefore,
                        task.caseGtin, task.caseQty, task.name, task.tote, task.qtyShort, unsent.contains(task.id),
                    ])
            }
            if batch.isClosed {
                try db.run(
                    "INSERT OR REPLACE INTO pick_list_closed (org, batch_id, closed_at) VALUES (?, ?, ?)",
                    [org, batch.id, batch.closedAt])
            }
            let stamp = Timestamp.iso8601(now)
            let current = try Self.openBatch(db)
            let sameBatch = current.map { $0.org == org && $0.batchId == batch.id } ?? false
            guard opening || sameBatch else { return false }
            try db.run(
                """
                INSERT INTO pick_list_batch (slot, org, batch_id, opened_at, refreshed_at) VALUES (1, ?, ?, ?, ?)
                ON CONFLICT (slot) DO UPDATE SET org = excluded.org, batch_id = excluded.batch_id,
                    refreshed_at = excluded.refreshed_at,
                    opened_at = CASE WHEN ? THEN opened_at ELSE excluded.opened_at END,
                    selected_task_id = CASE WHEN ? THEN selected_task_id ELSE NULL END
                """, [org, batch.id, stamp, stamp, sameBatch, sameBatch])
            return true
        }
    }

    /// Reopens a batch already in the cache (offline), or returns false when it never was opened.
    public func reopen(_ batchId: String, org: String) throws -> Bool {
        try queue.transaction { db in
            guard
                try db.row("SELECT 1 AS found FROM pick_list_tasks WHERE org = ? AND batch_id = ?", [org, batchId])
                    != nil
            else { return false }
            let stamp = Timestamp.iso8601()
            try db.run(
                """
                INSERT INTO pick_list_batch (slot, org, batch_id, opened_at, refreshed_at) VALUES (1, ?, ?, ?, ?)
                ON CONFLICT (slot) DO UPDATE SET org = excluded.org, batch_id = excluded.batch_id,
                    opened_at = excluded.opened_at, selected_task_id = NULL
                """, [org, batchId, stamp, stamp])
            return true
        }
    }

    /// Whether batch `batchId` of `org` is closed, as far as the station knows: the server closed
    /// it, or the station did (its close is queued).
    static func isClosed(_ batchId: String, org: String, in db: Database) throws -> Bool {
        try db.row("SELECT 1 AS found FROM pick_list_closed WHERE org = ? AND batch_id = ?", [org, batchId]) != nil
    }

    /// Whether the station has batch `batchId` of `org` cached (it was opened here).
    static func isCached(_ batchId: String, org: String, in db: Database) throws -> Bool {
        try db.row("SELECT 1 AS found FROM pick_list_tasks WHERE org = ? AND batch_id = ? LIMIT 1", [org, batchId])
            != nil
    }

    /// Marks batch `batchId` of `org` closed by this station at `closedAt`, inside the caller's
    /// transaction (which queues its close); a batch already closed keeps its close time.
    static func markClosedHere(_ batchId: String, org: String, at closedAt: String, in db: Database) throws {
        try db.run(
            "INSERT OR IGNORE INTO pick_list_closed (org, batch_id, closed_at) VALUES (?, ?, ?)",
            [org, batchId, closedAt])
    }

    /// The open batch and where it stands: closed (by the server, or by this station), every task
    /// done (picked or short).
    public struct OpenBatchState: Sendable, Equatable {
        public var org: String
        public var batchId: String
        public var closed: Bool
        public var complete: Bool

        /// `open`, `complete` (every task done; it still takes corrections) or `closed`: the batch
        /// statuses of the API.
        public var status: String { closed ? "closed" : complete ? "complete" : "open" }
    }

    public func openBatchState() throws -> OpenBatchState? {
        try queue.database.read { db in
            guard let open = try Self.openBatch(db) else { return nil }
            let tasks = try Self.tasks(db)
            return OpenBatchState(
                org: open.org, batchId: open.batchId, closed: try Self.isClosed(open.batchId, org: open.org, in: db),
                complete: !tasks.isEmpty && tasks.allSatisfy(\.isComplete))
        }
    }

    /// One batch the station has cached, for the page's list when the server cannot be reached.
    public struct CachedBatch: Sendable, Equatable {
        public var batchId: String
        public var tasks: Int
        public var complete: Int
        public var closed: Bool
    }

    /// The batches of `org` the station has cached and the server has not closed, at most `limit`.
    public func cachedBatches(org: String, limit: Int = 200) throws -> [CachedBatch] {
        try queue.database.read { db in
            try db.rows(
                """
                SELECT t.batch_id, COUNT(*) AS tasks, SUM(t.qty_picked + t.qty_short >= t.qty_required) AS complete
                FROM pick_list_tasks t WHERE t.org = ?1
                  AND NOT EXISTS (SELECT 1 FROM pick_list_closed c WHERE c.org = t.org AND c.batch_id = t.batch_id)
                GROUP BY t.batch_id ORDER BY MIN(t.rowid) LIMIT ?2
                """, [org, limit]
            ).map { row in
                CachedBatch(
                    batchId: try row.string("batch_id"), tasks: try row.int("tasks"), complete: try row.int("complete"),
                    closed: false)
            }
        }
    }

    /// The open batch's tasks in pick order.
    public func tasks() throws -> [PickTask] {
        try queue.database.read { db in try Self.tasks(db) }
    }

    /// The task the picker is on: the selected one while it is incomplete, else the first incomplete
    /// task in pick order; nil when the batch is done (or closed by the server) or none is open.
    public func activeTask() throws -> PickTask? {
        try queue.database.read { db in try Self.activeTask(db) }
    }

    /// Makes `taskId` the active task.
    public func select(_ taskId: String) throws(CacheError) {
        do {
            try queue.transaction { db in
                guard try Self.openBatch(db) != nil else { throw CacheError.noOpenBatch }
                guard try Self.task(taskId, in: db) != nil else { throw CacheError.noSuchTask(taskId) }
                try Self.select(taskId, in: db)
            }
        } catch let error as CacheError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// Makes `taskId` (a task of the open batch) the active task inside the caller's transaction.
    static func select(_ taskId: String, in db: Database) throws {
        try db.run("UPDATE pick_list_batch SET selected_task_id = ?", [taskId])
    }

    /// Adds `delta` (at least 1) to a cached task's picked count inside the caller's transaction,
    /// relative to the count as it stands, and only while picked + short stays within what the task
    /// requires (the over-pick rule is in the statement, so no stale read can break it; every count
    /// is at most ``quantityLimit`` and a tap at most 100 000, so no sum overflows); returns whether
    /// the row changed.
    static func addPicked(_ delta: Int, task: String, org: String, in db: Database) throws -> Bool {
        try db.run(
            """
            UPDATE pick_list_tasks SET qty_picked = qty_picked + ?1
            WHERE org = ?2 AND id = ?3 AND ?1 >= 1 AND qty_picked + qty_short <= qty_required - ?1
            """, [delta, org, task]) == 1
    }

    /// Adds `delta` (at least 1) to a cached task's short count inside the caller's transaction, as
    /// ``addPicked(_:task:org:in:)`` adds to its picked count, under the same rule; returns whether
    /// the row changed.
    static func addShort(_ delta: Int, task: String, org: String, in db: Database) throws -> Bool {
        try db.run(
            """
            UPDATE pick_list_tasks SET qty_short = qty_short + ?1
            WHERE org = ?2 AND id = ?3 AND ?1 >= 1 AND qty_picked + qty_short <= qty_required - ?1
            """, [delta, org, task]) == 1
    }

    /// Sets a cached task's picked count from `from` to `count` inside the caller's transaction, only
    /// while the row still holds `from` (the count the picker saw: a stale page must not wipe the
    /// picks made since) and `count` stays within the units already in a box and what the task
    /// requires; shorts that no longer fit beside the count shrink, as the server's do
    /// (``PickTask/settingPicked(to:)``). Returns whether the row changed.
    static func setPicked(from: Int, to count: Int, task: String, org: String, in db: Database) throws -> Bool {
        try db.run(
            """
            UPDATE pick_list_tasks SET qty_picked = ?1, qty_short = MAX(0, MIN(qty_short, qty_required - ?1))
            WHERE org = ?2 AND id = ?3 AND qty_picked = ?4 AND ?1 >= qty_locked AND ?1 <= qty_required
            """, [count, org, task, from]) == 1
    }

    /// One task of the open batch read on `db`, or nil when it is not in it.
    static func task(_ id: String, in db: Database) throws -> PickTask? {
        guard let open = try openBatch(db) else { return nil }
        return try db.row(
            "SELECT * FROM pick_list_tasks WHERE org = ? AND batch_id = ? AND id = ?", [open.org, open.batchId, id]
        ).map(Self.pickTask)
    }

    static func tasks(_ db: Database) throws -> [PickTask] {
        guard let open = try db.row("SELECT org, batch_id FROM pick_list_batch") else { return [] }
        return try db.rows(
            "SELECT * FROM pick_list_tasks WHERE org = ? AND batch_id = ? ORDER BY position",
            [try open.string("org"), try open.string("batch_id")]
        ).map(Self.pickTask)
    }

    private static func pickTask(_ row: Row) throws -> PickTask {
        PickTask(
            id: try row.string("id"), batchId: try row.string("batch_id"), orderId: try row.string("order_id"),
            lineId: try row.string("line_id"), sku: try row.string("sku"), location: try row.string("location"),
            barcode: try row.string("barcode"), qtyRequired: try row.int("qty_required"),
            qtyPicked: try row.int("qty_picked"), qtyLocked: try row.int("qty_locked"),
            lot: try row.optionalString("lot"),
            bestBefore: try row.optionalString("best_before"), caseGtin: try row.optionalString("case_gtin"),
            caseQty: try row.optionalInt("case_qty"), name: try row.optionalString("name"),
            tote: try row.optionalInt("tote"), qtyShort: try row.int("qty_short"))
    }

    /// The active task read on `db`: nil also when the server has closed the open batch.
    static func activeTask(_ db: Database) throws -> PickTask? {
        try activeTask(in: try tasks(db), db)
    }

    /// The active task among `tasks` (the open batch's, read on `db`).
    static func activeTask(in tasks: [PickTask], _ db: Database) throws -> PickTask? {
        guard let open = try openBatch(db), try !isClosed(open.batchId, org: open.org, in: db) else { return nil }
        let selected = try db.row("SELECT selected_task_id FROM pick_list_batch")?.optionalString("selected_task_id")
        if let selected, let task = tasks.first(where: { $0.id == selected }), !task.isComplete { return task }
        return tasks.first { !$0.isComplete }
    }
}

/// A pick-list operation that cannot be done, with why.
public enum CacheError: Error, Equatable, Sendable, CustomStringConvertible {
    case noOpenBatch
    case noSuchTask(String)
    case impossibleQuantity(task: String, field: String, value: Int)
    /// The server's batch gives a task text the API's own rules refuse.
    case impossibleText(task: String, field: String, problem: String)
    case storage(String)

    public var description: String {
        switch self {
        case .impossibleQuantity(let task, let field, let value):
            "the server's batch gives task \(task) \(field) \(value), outside 0–\(PickListCache.quantityLimit): the batch was not stored"
        case .impossibleText(let task, let field, let problem):
            "the server's batch gives task \(task) a \(field) that \(problem): the batch was not stored"
        case .noOpenBatch:
            "no batch is open on this station: open one from the page, by scanning a batch label, or with scanpick batch open ID"
        case .noSuchTask(let id): "task \(id) is not in the open batch (scanpick pick-list shows its tasks)"
        case .storage(let message): "the station database failed: \(message)"
        }
    }
}
