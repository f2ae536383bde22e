import Foundation
import GS1
import Queue
import SQLiteStorage
import Storage
import Timestamps
import Wire

/// The server's later refusals, as the picker must hear of them: a tap or scan the station counted
/// and queued, which the server refused when it was sent (a dead letter), means a unit in the tote
/// that does not count. Each is shown on the page until the picker acknowledges it, whatever
/// reloads or restarts come between: the dead letters are in the queue, the acknowledgements in
/// this table, both in the station database. Support still retries or clears the dead letter
/// itself; an acknowledgement only says the picker has dealt with the tote. A dead letter support
/// puts back in line and the server refuses again is a new refusal. Parked actions (support's own
/// doing) are not refusals.
///
///     let open = try PickerRefusals(station: station).unacknowledged()
///     try PickerRefusals(station: station).acknowledge(open[0].id, by: "w-ana")
public struct PickerRefusals: Sendable {
    let station: PickStation

    /// The acknowledgements' table, applied with the pick-list cache's.
    static let migration = Migration(
        "refusals-1",
        sql: """
            CREATE TABLE picker_refusals_acknowledged (
                action_id INTEGER PRIMARY KEY, tries INTEGER NOT NULL, at TEXT NOT NULL, by TEXT);
            """)

    /// The most refusals shown at once (the oldest first).
    public static let shownLimit = 20

    /// One refusal as the page shows it.
    public struct Refusal: Sendable, Equatable, Encodable {
        /// The dead letter's action id (what the acknowledgement names).
        public var id: Int
        public var pickTaskId: String
        /// `pick`, `scan`, `setQty` (or any later kind).
        public var kind: String
        /// The units the station counted that the server did not (0 for a count that was set).
        public var units: Int
        /// What the picker does now, naming the product and location.
        public var message: String
        /// When the server refused it.
        public var at: String
    }

    /// The refusals not yet acknowledged, oldest first (at most ``shownLimit``): dead letters the
    /// server refused (their last error is its `code: message`) of tasks the station has cached.
    public func unacknowledged() throws -> [Refusal] {
        try station.queue.database.read { db in try Self.unacknowledged(db) }
    }

    static func unacknowledged(_ db: Database) throws -> [Refusal] {
        let rows = try db.rows(
            """
            SELECT a.id, a.kind, a.pick_task_id, a.payload, a.last_error, a.updated_at,
                t.sku, t.name, t.location, t.barcode, t.lot, t.best_before, t.case_gtin, t.case_qty
            FROM actions a JOIN pick_list_tasks t ON t.org = a.org AND t.id = a.pick_task_id
            WHERE a.state = 'dead' AND a.last_error IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM picker_refusals_acknowledged k WHERE k.action_id = a.id AND k.tries >= a.tries)
            ORDER BY a.id LIMIT 200
            """, [])
        var refusals: [Refusal] = []
        for row in rows where refusals.count < Self.shownLimit {
            guard let code = Self.serverCode(try row.optionalString("last_error") ?? "") else { continue }
            let task = PickTask(
                id: try row.string("pick_task_id"), batchId: "", orderId: "", lineId: "", sku: try row.string("sku"),
                location: try row.string("location"), barcode: try row.string("barcode"), qtyRequired: 0, qtyPicked: 0,
                qtyLocked: 0, lot: try row.optionalString("lot"), bestBefore: try row.optionalString("best_before"),
                caseGtin: try row.optionalString("case_gtin"), caseQty: try row.optionalInt("case_qty"),
                name: try row.optionalString("name"))
            let kind = try row.string("kind")
            let payload = (try? JSONSerialization.jsonObject(with: Data(try row.bytes("payload")))) as? [String: Any]
            let units = Self.units(kind: kind, payload: payload ?? [:], task: task)
            refusals.append(
                Refusal(
                    id: try row.int("id"), pickTaskId: task.id, kind: kind, units: units,
                    message: Self.message(kind: kind, code: code, units: units, payload: payload ?? [:], task: task),
                    at: try row.string("updated_at")))
        }
        return refusals
    }

    /// Records that the picker has dealt with refusal `id` (`by`: the worker signed in, if any).
    /// Throws ``PickerRefusalError/noSuchRefusal(_:)`` when it is not one shown now.
    public func acknowledge(_ id: Int, by worker: String?, now: Date = Date()) throws {
        try station.queue.transaction { db in
            guard try Self.unacknowledged(db).contains(where: { $0.id == id }),
                let tries = try db.row("SELECT tries FROM actions WHERE id = ?", [id])?.int("tries")
            else { throw PickerRefusalError.noSuchRefusal(id) }
            try db.run(
                """
                INSERT INTO picker_refusals_acknowledged (action_id, tries, at, by) VALUES (?, ?, ?, ?)
                ON CONFLICT (action_id) DO UPDATE SET tries = excluded.tries, at = excluded.at, by = excluded.by
                """, [id, tries, Timestamp.iso8601(now), worker])
            // Acknowledgements of actions cleared or pruned since have nothing left to say.
            try db.run(
                "DELETE FROM picker_refusals_acknowledged WHERE action_id NOT IN (SELECT id FROM actions)", [])
        }
    }

    /// The server's error code at the head of a dead letter's last error (`over_pick: …`), or nil
    /// for one the server did not give (a parked action's).
    static func serverCode(_ lastError: String) -> String? {
        guard let colon = lastError.firstIndex(of: ":") else { return nil }
        let code = lastError[..<colon]
        guard !code.isEmpty, code.utf8.allSatisfy({ (0x61...0x7A).contains($0) || $0 == 0x5F }) else { return nil }
        return String(code)
    }

    /// The units an action added on the station: a pick's quantity, a scan's (a case's quantity for
    /// the line's case code), a short's; none for a set count.
    static func units(kind: String, payload: [String: Any], task: PickTask) -> Int {
        switch kind {
        case "scan":
            guard let code = payload["barcode"] as? String,
                case .units(let units) = ScanRule.evaluate(
                    code, for: task.scanRuleLine, sameItem: { GTIN.sameItem($0, $1) })
            else { return 1 }
            return units
        case "setQty": return 0
        default: return (payload["qty"] as? Int) ?? 1
        }
    }

    /// What the picker does about it, naming the product and the location.
    static func message(kind: String, code: String, units: Int, payload: [String: Any], task: PickTask) -> String {
        let item = "\(task.displayName) at \(task.location)"
        switch kind {
        case "setQty":
            let to = (payload["to"] as? Int).map { " to \($0)" } ?? ""
            let why =
                switch code {
                case "locked_by_shipment": "some units are already in a box"
                case "over_pick": "that is more than is wanted"
                case "batch_closed": "the batch was closed"
                default: "the server did not accept it"
                }
            return "The count of \(item) was not set\(to): \(why). Count the tote again"
        case "short":
            return "The \(units) not picked of \(item) were not recorded: tell your lead"
        default:
            if code == "too_old_to_deduplicate" {
                return "Call support: \(units) × \(item) may not have counted (it waited too long to be sent)"
            }
            let why =
                switch code {
                case "over_pick":
                    units == 1 ? "another station picked the last one" : "another station picked the last ones"
                case "batch_closed": "the batch was closed before it counted"
                case "not_found": "that line is no longer on the batch"
                case "lot_mismatch": "the server wants another lot"
                case "expired": "its date is too soon"
                case "barcode_mismatch": "the server says it is not this item"
                default: "the server did not count it"
                }
            return "Put back \(units) × \(item) — \(why)"
        }
    }
}

/// An acknowledgement the station cannot record.
public enum PickerRefusalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No refusal shown now has this id (acknowledged already, or retried or cleared by support).
    case noSuchRefusal(Int)

    public var description: String {
        switch self {
        case .noSuchRefusal: "that refusal is no longer open: it was dealt with already"
        }
    }
}

extension PickStation {
    /// The server's later refusals the picker has not acknowledged (``PickerRefusals``).
    public var refusals: PickerRefusals { PickerRefusals(station: self) }
}
