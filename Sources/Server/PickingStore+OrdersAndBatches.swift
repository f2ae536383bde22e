import Foundation
import Storage
import Wire

/// Orders as ``PickingStore/upsert(_:)`` takes them: one JSON array, encoded on the request's
/// thread before the write transaction, so the writer is not held for it.
struct OrderFeed: Sendable {
    let json: String
    let count: Int

    init(_ orders: [Order]) {
        json = String(decoding: orders.jsonBytes, as: UTF8.self)
        count = orders.count
    }
}

/// Orders and batches: the ERP feed's upsert, making a batch of the free lines, reading, settling
/// and closing batches.
extension PickingStore {
    /// Upserts orders and their lines by id (an ERP feed); returns how many orders were written. The
    /// request's fields were checked against ``FieldRules``, which bound its size and make its ids
    /// unique. Two statements whatever the size, the orders travelling as one JSON array encoded
    /// before the transaction (``OrderFeed``): the database's own C code does the per-line work
    /// while the writer is held.
    func upsert(_ feed: OrderFeed) throws -> Int {
        let json = feed.json
        let order = { (field: String) in dialect.jsonText("o", field) }
        try db.runLater(
            """
            INSERT INTO orders (org, id, carrier, zone, ship_by, updated_at)
            SELECT ?1, \(order("id")), \(order("carrier")), \(order("zone")), \(order("shipBy")), ?3
            FROM \(dialect.jsonArray("?2", as: "o")) WHERE true
            ON CONFLICT (org, id) DO UPDATE SET carrier = excluded.carrier, zone = excluded.zone,
                ship_by = excluded.ship_by, updated_at = excluded.updated_at
            """, [org, json, now])
        let line = { (field: String) in dialect.jsonText("l", field) }
        try db.runLater(
            """
            INSERT INTO order_lines (org, order_id, id, sku, location, barcode, qty, lot, best_before, case_gtin, case_qty,
                                     name)
            SELECT ?1, \(order("id")), \(line("id")), \(line("sku")), \(line("location")), \(line("barcode")),
                   \(dialect.jsonInteger("l", "qty")), \(line("lot")), \(line("bestBefore")), \(line("caseGtin")),
                   \(dialect.jsonInteger("l", "caseQty")), \(line("name"))
            FROM \(dialect.jsonArray("?2", as: "o")), \(dialect.jsonArray(field: "lines", of: "o", as: "l")) WHERE true
            ON CONFLICT (org, order_id, id) DO UPDATE SET sku = excluded.sku, location = excluded.location,
                barcode = excluded.barcode, qty = excluded.qty, lot = excluded.lot, best_before = excluded.best_before,
                case_gtin = excluded.case_gtin, case_qty = excluded.case_qty, name = excluded.name
            """, [org, json])
        return feed.count
    }

    /// The most lines one batch takes (the first in location order); the rest wait for the next batch.
    /// This bounds how long creating a batch holds the database's writer.
    static let maxBatchTasks = 1000

    /// The order lines a new batch would take: those matching `filters`, not in a batch still open
    /// (or complete, not yet closed) and
    /// with units that no closed batch picked (a closed batch's unpicked units return to the pool),
    /// in location order, at most ``maxBatchTasks``. A read, run outside the write transaction: its cost
    /// grows with the organisation's lines, and no writer waits for it. Returned as a JSON array of
    /// `{"orderId","lineId"}` for ``createBatch(of:)``.
    func batchCandidates(_ filters: BatchFilters) throws -> String? {
        let orderIds = filters.orderIds.map { ids in String(decoding: JSONCoding.encode(ids), as: UTF8.self) }
        let rows = try db.rows(
            """
            SELECT l.order_id, l.id FROM order_lines l
            JOIN orders o ON o.org = l.org AND o.id = l.order_id
            WHERE l.org = ?1 AND l.qty > 0
              AND (CAST(?2 AS TEXT) IS NULL OR o.carrier = ?2) AND (CAST(?3 AS TEXT) IS NULL OR o.zone = ?3)
              AND (CAST(?4 AS TEXT) IS NULL OR o.ship_by <= ?4)
              AND (CAST(?5 AS TEXT) IS NULL OR o.id IN (\(dialect.textsOfJSONArray("?5"))))
              AND NOT EXISTS (\(Self.inOpenBatch)) AND l.qty > \(Self.pickedByClosedBatches)
            ORDER BY l.location, l.order_id, l.id
            LIMIT \(Self.maxBatchTasks)
            """, [org, filters.carrier, filters.zone, filters.shipByOnOrBefore, orderIds])
        guard !rows.isEmpty else { return nil }
        let lines = try rows.map { BatchLine(orderId: try $0.string("order_id"), lineId: try $0.string("id")) }
        return String(decoding: JSONCoding.encode(lines), as: UTF8.self)
    }

    /// Makes a batch of the `candidates` (from ``batchCandidates(_:)``) still free now, in location
    /// order, in one statement; returns its id, or nil when another batch took them all since they
    /// were chosen. Each order of the batch gets its tote number. Work bounded by ``maxBatchTasks``
    /// lines, whatever the size of the organisation's data.
    func createBatch(of candidates: String) throws -> String? {
        if let lock = dialect.lockBatching { try db.runLater(lock, [org]) }
        let batchId = "batch-" + Self.newIdentifier()
        try db.runLater(
            "INSERT INTO batches (org, id, created_at, changed_at) VALUES (?, ?, ?, ?)", [org, batchId, now, now])
        let taken = try db.run(
            """
            INSERT INTO pick_tasks (org, id, batch_id, order_id, line_id, position, qty_before)
            SELECT ?1, \(dialect.newIdentifier(prefix: "task-")), ?3, l.order_id, l.id,
                   ROW_NUMBER() OVER (ORDER BY l.location, l.order_id, l.id) - 1, \(Self.pickedByClosedBatches)
            FROM \(dialect.jsonArray("?2", as: "c"))
            JOIN order_lines l
              ON l.org = ?1 AND l.order_id = \(dialect.jsonText("c", "orderId")) AND l.id = \(dialect.jsonText("c", "lineId"))
            WHERE l.qty > 0 AND NOT EXISTS (\(Self.inOpenBatch)) AND l.qty > \(Self.pickedByClosedBatches)
            """, [org, candidates, batchId])
        guard taken > 0 else {
            try db.runLater("DELETE FROM batches WHERE org = ? AND id = ?", [org, batchId])
            return nil
        }
        try db.runLater(Self.numberTotes, [org, batchId])
        return batchId
    }

    /// Numbers the orders of batch `?2` 1, 2, … in the order its tasks first list them (pick order):
    /// each task's `tote` is its order's number.
    private static let numberTotes = """
        UPDATE pick_tasks SET tote = r.tote FROM (
            SELECT order_id, ROW_NUMBER() OVER (ORDER BY MIN(position), order_id) AS tote
            FROM pick_tasks WHERE org = ?1 AND batch_id = ?2 GROUP BY order_id) AS r
        WHERE pick_tasks.org = ?1 AND pick_tasks.batch_id = ?2 AND pick_tasks.order_id = r.order_id
        """

    /// Whether order line `l` is already a task of a batch not closed (open or complete).
    private static let inOpenBatch = """
        SELECT 1 FROM pick_tasks t JOIN batches b ON b.org = t.org AND b.id = t.batch_id
        WHERE t.org = l.org AND t.order_id = l.order_id AND t.line_id = l.id AND b.status <> 'closed'
        """

    /// The units of order line `l` that closed batches picked (each task counts only its own units).
    private static let pickedByClosedBatches = """
        COALESCE((SELECT SUM(t.qty_picked) FROM pick_tasks t JOIN batches b ON b.org = t.org AND b.id = t.batch_id
                  WHERE t.org = l.org AND t.order_id = l.order_id AND t.line_id = l.id AND b.status = 'closed'), 0)
        """

    /// One line a new batch takes.
    private struct BatchLine: Codable {
        var orderId: String
        var lineId: String
    }

    func batch(_ id: String) throws -> Batch {
        guard let found = try db.row("SELECT status, closed_at FROM batches WHERE org = ? AND id = ?", [org, id])
        else {
            throw PickingError.notFound(.batch, id: id)
        }
        let rows = try db.rows(Self.batchTasksQuery, [org, id])
        let shortages = try db.rows(
            """
            SELECT s.pick_task_id, s.qty, s.reason FROM shortages s
            JOIN pick_tasks t ON t.org = s.org AND t.id = s.pick_task_id
            WHERE t.org = ? AND t.batch_id = ? ORDER BY t.position, s.reason
            """, [org, id])
        return Batch(
            id: id, tasks: try rows.map(Self.pickTask), status: try found.string("status"),
            closedAt: try found.optionalString("closed_at"),
            shortages: try shortages.map { row in
                Shortage(
                    pickTaskId: try row.string("pick_task_id"), qty: try row.int("qty"),
                    reason: try row.string("reason"))
            })
    }

    /// The organisation's batches not closed (open or complete), oldest first, at most
    /// ``BatchList/limit``, with how many of their tasks are done (picked or short).
    func openBatches() throws -> BatchList {
        let rows = try db.rows(
            """
            SELECT b.id, b.status, b.created_at, b.closed_at,
                   (SELECT COUNT(*) FROM pick_tasks t WHERE t.org = b.org AND t.batch_id = b.id) AS tasks,
                   (SELECT COUNT(*) FROM pick_tasks t
                    JOIN order_lines l ON l.org = t.org AND l.order_id = t.order_id AND l.id = t.line_id
                    WHERE t.org = b.org AND t.batch_id = b.id
                      AND t.qty_picked + t.qty_short >= l.qty - t.qty_before) AS complete
            FROM batches b WHERE b.org = ? AND b.status <> 'closed'
            ORDER BY b.created_at, b.id LIMIT \(BatchList.limit)
            """, [org])
        return BatchList(
            batches: try rows.map { row in
                BatchSummary(
                    id: try row.string("id"), status: try row.string("status"),
                    createdAt: try row.string("created_at"), closedAt: try row.optionalString("closed_at"),
                    tasks: try row.int("tasks"), complete: try row.int("complete"))
            })
    }

    /// Closes a batch, open or complete (a picker's "Finish batch", `scanpick batch close`): no
    /// more picks count on it, and the units its tasks left unpicked (short ones too) can go into the
    /// next batch. Closing a closed batch changes nothing (it keeps its first close time). Returns
    /// the batch as it now stands.
    func closeBatch(_ id: String) throws -> Batch {
        try db.runLater(
            "UPDATE batches SET status = 'closed', closed_at = ? WHERE org = ? AND id = ? AND status <> 'closed'",
            [now, org, id])
        return try batch(id)  // not found: nothing was changed
    }

    /// After a counted change to a task of batch `batchId` that was done or is now: the batch is
    /// `complete` when every task is done (picked + short = required), else `open`, and its last
    /// change is now (a complete batch closes `batches.autoCloseMinutes` after it). A change that
    /// leaves a task undone both before and after cannot make the batch complete, and is not
    /// settled (a quick scan costs no scan of the batch).
    func settle(_ batchId: String) throws {
        try db.runLater(
            """
            UPDATE batches SET changed_at = ?1, status = CASE WHEN EXISTS (
                SELECT 1 FROM pick_tasks t
                JOIN order_lines l ON l.org = t.org AND l.order_id = t.order_id AND l.id = t.line_id
                WHERE t.org = ?2 AND t.batch_id = ?3 AND t.qty_picked + t.qty_short < l.qty - t.qty_before)
              THEN 'open' ELSE 'complete' END
            WHERE org = ?2 AND id = ?3 AND status <> 'closed'
            """, [now, org, batchId])
    }

    /// Closes complete batches (of every organisation) whose last change was at or before
    /// `cutoff`, at most `limit` (their close time `now`); returns how many. With PostgreSQL a pick
    /// in progress on such a batch is waited for, and the batch is closed only if it is still
    /// complete and unchanged since `cutoff` after it.
    static func closeIdleBatches(before cutoff: Date, now: Date, limit: Int, in db: any SQLConnection) throws -> Int {
        try db.run(
            """
            UPDATE batches SET status = 'closed', closed_at = ?1
            WHERE status = 'complete' AND changed_at <= ?2 AND (org, id) IN (
                SELECT org, id FROM batches WHERE status = 'complete' AND changed_at <= ?2 LIMIT ?3)
            """, [now, cutoff, limit])
    }
}
