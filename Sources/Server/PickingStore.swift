import Foundation
import GS1
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

/// The API's operations on the database for one organisation. Every method runs inside the caller's
/// transaction and throws a ``PickingError`` for a refusal, so a refused request changes nothing. The
/// statements are the same on SQLite and PostgreSQL; `dialect` adds the locks PostgreSQL needs.
struct PickingStore {
    let db: any SQLConnection
    let dialect: SQLDialect
    let org: String
    /// The time recorded on rows this request writes.
    let now: Date
    /// The station that sent the request (`X-ScanPick-Station`), recorded with each event.
    var station: String? = nil

    // MARK: Orders and batches

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
    private func settle(_ batchId: String) throws {
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

    // MARK: Picking

    /// Locks a task's row for the rest of the transaction (PostgreSQL) and reads it; every change to
    /// a task's picked or boxed units reads it this way.
    func lockedPickTask(_ id: String) throws -> PickTask {
        try pickTask(id, locking: true)
    }

    /// ``lockedPickTask(_:)`` for a change to its picked or short count: a task of a closed batch is
    /// refused (409) before anything about the change itself is judged (an open or complete one
    /// takes changes). The task and its batch's status are one read. With PostgreSQL the batch's
    /// row is locked too, after the task's, until commit: a close waits for a pick in progress (and a
    /// pick begun after a close sees it), and the last picks of a batch's tasks, made side by side,
    /// see each other when one of them makes it complete.
    private func lockedTaskOfAnOpenBatch(_ id: String) throws -> PickTask {
        if dialect.locksRows {
            try db.runLater(Self.lockPickTask, [org, id])
            try db.runLater(Self.lockBatchOfTask, [org, id])
        }
        guard let row = try db.row(Self.taskAndBatchByIdQuery, [org, id]) else {
            throw PickingError.notFound(.pickTask, id: id)
        }
        let task = try Self.pickTask(row)
        if try row.optionalString("batch_status") == "closed" {
            throw PickingError.batchClosed(batchId: task.batchId, closedAt: try row.optionalString("batch_closed_at"))
        }
        return task
    }

    func pickTask(_ id: String, locking: Bool = false) throws -> PickTask {
        if locking, dialect.locksRows { try db.runLater(Self.lockPickTask, [org, id]) }
        guard let row = try db.row(Self.taskByIdQuery, [org, id]) else {
            throw PickingError.notFound(.pickTask, id: id)
        }
        return try Self.pickTask(row)
    }

    /// One scan: the barcode must name the task's item (GTIN forms alike), counting one unit, or its
    /// case (`caseQty` units, or a GS1 (37) count), by the rule the station applies (``ScanRule``);
    /// GS1 data must carry the line's lot and expire no earlier than its `bestBefore`; and the units
    /// must fit what the task still needs.
    func submitScan(_ request: SubmitScanRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        // The station judged the scan knowing what its reader reported; the server cannot: any
        // reading of an ambiguous 8-digit code that names the task's item is accepted here.
        let outcome = ScanRule.evaluate(
            request.barcode, for: task.scanRuleLine, sameItem: { GTIN.mayBeSameItem($0, $1) })
        let units: Int
        switch outcome {
        case .units(let counted): units = counted
        case .otherItem: throw PickingError.barcodeMismatch(scanned: request.barcode, task: task)
        case .lotMismatch, .expired, .malformed, .noCount: throw PickingError.scanRefused(outcome, task: task)
        }
        guard !task.isComplete else {
            throw PickingError.overPick(task: task, asked: .scan)
        }
        let total = try Self.picked(task, adding: units, asked: .scanUnits(units))
        return try setPicked(task, to: total, kind: "scan", worker: request.workerId, at: request.scannedAt, key: key)
    }

    /// A tap that picks `qty` more units (its range was checked against ``FieldRules``).
    func pick(_ request: PickRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        let total = try Self.picked(task, adding: request.qty, asked: .pick(request.qty))
        return try setPicked(task, to: total, kind: "pick", worker: request.workerId, at: request.at, key: key)
    }

    /// The task's picked count with `units` more, refused as an over-pick past what the task still
    /// needs: picked + short may not pass required (sums checked: no count can overflow).
    private static func picked(_ task: PickTask, adding units: Int, asked: PickingError.PickChange) throws -> Int {
        let (total, overflow) = task.qtyPicked.addingReportingOverflow(units)
        let (room, roomOverflow) = task.qtyRequired.subtractingReportingOverflow(task.qtyShort)
        guard !overflow, !roomOverflow, total <= room else {
            throw PickingError.overPick(task: task, asked: asked)
        }
        return total
    }

    /// A tap that sets the picked count; never below the units already in a box, nor above what
    /// the task requires. The count set wins over shorts reported before: those that no longer fit
    /// beside it shrink, the latest reported first (``PickTask/settingPicked(to:)``).
    func setQty(_ request: SetQtyRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        guard request.to >= task.qtyLocked else {
            throw PickingError.lockedByShipment(task: task)
        }
        guard request.to <= task.qtyRequired else {
            throw PickingError.overPick(task: task, asked: .setQty(request.to))
        }
        let updated = task.settingPicked(to: request.to)
        if updated.qtyShort < task.qtyShort {
            try withdrawShortages(
                of: task, units: task.qtyShort - updated.qtyShort, key: key, worker: request.workerId, at: request.at)
        }
        return try setPicked(
            updated, to: request.to, kind: "setQty", worker: request.workerId, at: request.at, key: key,
            was: task)
    }

    /// Units that will not be picked, with why: picked + short may not pass required (422
    /// `over_pick`, as for picks).
    func short(_ request: ShortPickRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        let (total, overflow) = task.qtyShort.addingReportingOverflow(request.qty)
        let (room, roomOverflow) = task.qtyRequired.subtractingReportingOverflow(task.qtyPicked)
        guard !overflow, !roomOverflow, total <= room else {
            throw PickingError.overPick(task: task, asked: .short(request.qty))
        }
        try db.runLater("UPDATE pick_tasks SET qty_short = ? WHERE org = ? AND id = ?", [total, org, task.id])
        try db.runLater(
            """
            INSERT INTO shortages (org, pick_task_id, reason, qty, recorded_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (org, pick_task_id, reason) DO UPDATE SET qty = shortages.qty + excluded.qty,
                recorded_at = excluded.recorded_at
            """, [org, task.id, request.reason, request.qty, now])
        try recordEvent(
            "short", task: task.id, delta: request.qty, after: total, worker: request.workerId, at: request.at,
            key: key, reason: request.reason)
        var updated = task
        updated.qtyShort = total
        try settle(updated.batchId)  // a short always leaves its task nearer done
        return updated
    }

    /// Withdraws `units` of a task's shorts (a set-qty found units reported missing), from the
    /// reason reported last; recorded as a negative short.
    private func withdrawShortages(of task: PickTask, units: Int, key: String, worker: String, at: String) throws {
        var left = units
        let rows = try db.rows(
            "SELECT reason, qty FROM shortages WHERE org = ? AND pick_task_id = ? ORDER BY recorded_at DESC, reason",
            [org, task.id])
        for row in rows where left > 0 {
            let reason = try row.string("reason")
            let qty = try row.int("qty")
            let taken = min(qty, left)
            if taken == qty {
                try db.runLater(
                    "DELETE FROM shortages WHERE org = ? AND pick_task_id = ? AND reason = ?", [org, task.id, reason])
            } else {
                try db.runLater(
                    "UPDATE shortages SET qty = qty - ? WHERE org = ? AND pick_task_id = ? AND reason = ?",
                    [taken, org, task.id, reason])
            }
            left -= taken
        }
        try db.runLater(
            "UPDATE pick_tasks SET qty_short = ? WHERE org = ? AND id = ?", [task.qtyShort - units, org, task.id])
        try recordEvent(
            "short", task: task.id, delta: -units, after: task.qtyShort - units, worker: worker, at: at, key: key,
            reason: nil)
    }

    /// Sets the task's picked count (of a task of a batch not closed) and records the event; the
    /// batch is settled (complete or open again) when the task was done or now is. `was` is the
    /// task before the change (`task` itself unless a set-qty changed its shorts too).
    private func setPicked(
        _ task: PickTask, to qty: Int, kind: String, worker: String, at: String, key: String, was: PickTask? = nil
    ) throws -> PickTask {
        let before = was ?? task
        try db.runLater("UPDATE pick_tasks SET qty_picked = ? WHERE org = ? AND id = ?", [qty, org, task.id])
        try recordEvent(
            kind, task: task.id, delta: qty - before.qtyPicked, after: qty, worker: worker, at: at, key: key)
        var updated = task
        updated.qtyPicked = qty
        if before.isComplete || updated.isComplete { try settle(task.batchId) }
        return updated
    }

    /// Records one counted change in the events table (the audit trail).
    private func recordEvent(
        _ kind: String, task: String, delta: Int, after: Int, worker: String, at: String, key: String,
        reason: String? = nil
    ) throws {
        try db.runLater(
            """
            INSERT INTO events (org, kind, pick_task_id, delta, qty_after, worker_id, at, idempotency_key, recorded_at,
                                station, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [org, kind, task, delta, after, worker, at, key, now, station, reason])
    }

    // MARK: Shipments (the pack–pick interlock)

    /// A label exists: these units are now in a box and locked at picked.
    func createShipment(_ request: CreateShipmentRequest) throws -> ShipmentStatus {
        guard try db.row("SELECT 1 AS found FROM orders WHERE org = ? AND id = ?", [org, request.orderId]) != nil else {
            throw PickingError.notFound(.order, id: request.orderId)
        }
        guard !request.units.isEmpty else {
            throw PickingError.emptyShipment
        }
        guard Set(request.units.map(\.pickTaskId)).count == request.units.count else {
            throw PickingError.repeatedShipmentUnit
        }
        for taskId in request.units.map(\.pickTaskId).sorted() {  // one lock order: no deadlocks
            _ = try lockedPickTask(taskId)
        }
        let id = "shipment-" + Self.newIdentifier()
        try db.runLater(
            "INSERT INTO shipments (org, id, order_id, status, created_at) VALUES (?, ?, ?, 'active', ?)",
            [org, id, request.orderId, now])
        for unit in request.units {
            let task = try pickTask(unit.pickTaskId)
            guard task.orderId.utf8.elementsEqual(request.orderId.utf8) else {  // as the database compares
                throw PickingError.taskNotInOrder(task: task, order: request.orderId)
            }
            let free = task.qtyPicked - task.qtyLocked
            guard unit.qty <= free else {
                throw PickingError.notPicked(task: task, free: free, asked: unit.qty)
            }
            try db.runLater(
                "INSERT INTO shipment_units (org, shipment_id, pick_task_id, qty) VALUES (?, ?, ?, ?)",
                [org, id, unit.pickTaskId, unit.qty])
        }
        return ShipmentStatus(id: id, status: "active")
    }

    /// Voids a label: its units are released at once (the lock is computed, nothing to clean up).
    func voidShipment(_ id: String) throws -> ShipmentStatus {
        guard try db.row("SELECT 1 AS found FROM shipments WHERE org = ? AND id = ?", [org, id]) != nil else {
            throw PickingError.notFound(.shipment, id: id)
        }
        try db.runLater(
            "UPDATE shipments SET status = 'voided', voided_at = ? WHERE org = ? AND id = ? AND status = 'active'",
            [now, org, id])
        return ShipmentStatus(id: id, status: "voided")
    }

    // MARK: Helpers

    /// Locks a pick task's row until commit where transactions run side by side, so two requests
    /// never both read the same `qty_picked` and each add to it (a lost update). It is a statement of
    /// its own, sent in the same round trip as the read that follows it: under READ COMMITTED that
    /// read takes a fresh snapshot once the lock is held, so it sees everything the transaction it
    /// waited for committed, including new shipment units (a `FOR UPDATE` on the read itself would
    /// recheck the task's row but compute its boxed units from the snapshot taken before the wait).
    /// The order line is locked too, shared: an ERP feed lowering its quantity waits for this
    /// request, or this request waits for the feed and reads the new quantity.
    static let lockPickTask = """
        SELECT 1 AS locked FROM pick_tasks t
        JOIN order_lines l ON l.org = t.org AND l.order_id = t.order_id AND l.id = t.line_id
        WHERE t.org = ? AND t.id = ? FOR UPDATE OF t FOR SHARE OF l
        """

    /// A pick task with its required quantity from the order line (less the units closed batches
    /// had picked when the task was made) and its locked units computed live from active shipments:
    /// the columns ``pickTask(_:)`` reads, from ``taskTables``.
    static let taskColumns = """
        t.id, t.batch_id, t.order_id, t.line_id, l.sku, l.location, l.barcode,
        CASE WHEN l.qty > t.qty_before THEN l.qty - t.qty_before ELSE 0 END AS qty_required,
        t.qty_picked, t.qty_short, t.tote, l.lot, l.best_before, l.case_gtin, l.case_qty, l.name,
        COALESCE((SELECT SUM(u.qty) FROM shipment_units u
                  JOIN shipments s ON s.org = u.org AND s.id = u.shipment_id
                  WHERE u.org = t.org AND u.pick_task_id = t.id AND s.status = 'active'), 0) AS qty_locked
        """
    static let taskTables =
        "pick_tasks t JOIN order_lines l ON l.org = t.org AND l.order_id = t.order_id AND l.id = t.line_id"

    static let taskByIdQuery = "SELECT \(taskColumns) FROM \(taskTables) WHERE t.org = ? AND t.id = ?"
    static let batchTasksQuery =
        "SELECT \(taskColumns) FROM \(taskTables) WHERE t.org = ? AND t.batch_id = ? ORDER BY t.position"

    /// ``taskByIdQuery`` with the status of the task's batch (`batch_status`, `batch_closed_at`).
    static let taskAndBatchByIdQuery = """
        SELECT \(taskColumns), b.status AS batch_status, b.closed_at AS batch_closed_at
        FROM \(taskTables) LEFT JOIN batches b ON b.org = t.org AND b.id = t.batch_id WHERE t.org = ? AND t.id = ?
        """

    /// Locks the row of a task's batch until commit (PostgreSQL; see ``lockedTaskOfAnOpenBatch(_:)``).
    static let lockBatchOfTask = """
        SELECT 1 AS locked FROM batches b JOIN pick_tasks t ON t.org = b.org AND t.id = ?2
        WHERE b.org = ?1 AND b.id = t.batch_id FOR UPDATE OF b
        """

    static func pickTask(_ row: Row) throws -> PickTask {
        PickTask(
            id: try row.string("id"), batchId: try row.string("batch_id"), orderId: try row.string("order_id"),
            lineId: try row.string("line_id"), sku: try row.string("sku"), location: try row.string("location"),
            barcode: try row.string("barcode"), qtyRequired: try row.int("qty_required"),
            qtyPicked: try row.int("qty_picked"), qtyLocked: try row.int("qty_locked"),
            lot: try row.optionalString("lot"),
            bestBefore: try row.optionalString("best_before"), caseGtin: try row.optionalString("case_gtin"),
            caseQty: try row.optionalInt("case_qty"), name: try row.optionalString("name"),
            tote: try row.int("tote") > 0 ? try row.int("tote") : nil, qtyShort: try row.int("qty_short"))
    }

    static func newIdentifier() -> String {
        String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))
    }

}
