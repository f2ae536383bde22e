import Foundation
import Storage
import Wire

/// The API's operations on the database for one organisation. Every method runs inside the caller's
/// transaction and throws a ``PickingError`` for a refusal, so a refused request changes nothing. The
/// statements are the same on SQLite and PostgreSQL; `dialect` adds the locks PostgreSQL needs.
///
/// This file holds what every part reads: a task and the statements that read and lock it. The
/// parts, each an extension in a file of its own: `PickingStore+OrdersAndBatches` (the ERP feed,
/// making, reading and closing batches), `PickingStore+Picking` (scans, picks, quantities, shorts,
/// and the events they record) and `PickingStore+Shipments` (the pack–pick interlock).
struct PickingStore {
    let db: any SQLConnection
    let dialect: SQLDialect
    let org: String
    /// The time recorded on rows this request writes.
    let now: Date
    /// The station that sent the request (`X-ScanPick-Station`), recorded with each event.
    var station: String? = nil

    /// Locks a task's row for the rest of the transaction (PostgreSQL) and reads it; every change to
    /// a task's picked or boxed units reads it this way.
    func lockedPickTask(_ id: String) throws -> PickTask {
        try pickTask(id, locking: true)
    }

    func pickTask(_ id: String, locking: Bool = false) throws -> PickTask {
        if locking, dialect.locksRows { try db.runLater(Self.lockPickTask, [org, id]) }
        guard let row = try db.row(Self.taskByIdQuery, [org, id]) else {
            throw PickingError.notFound(.pickTask, id: id)
        }
        return try Self.pickTask(row)
    }

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
