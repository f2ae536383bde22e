import Foundation
import Queue
import SQLiteStorage
import Timestamps
import Wire

/// The batches the cache holds: storing the server's view of one, reopening one offline, marking
/// one closed, and what it holds for the page when the server cannot be reached.
extension PickListCache {
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
}
