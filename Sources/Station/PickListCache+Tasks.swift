import SQLiteStorage
import Storage
import Wire

/// The open batch's tasks: reading them, the active one, and the counts a tap changes inside the
/// caller's transaction.
extension PickListCache {
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
