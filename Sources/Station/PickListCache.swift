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
///
/// This file holds its tables and which batch is open. Its other parts, each an extension in a file
/// of its own: `PickListCache+Batches` (storing the server's batches, reopening, closing, what is
/// cached) and `PickListCache+Tasks` (the open batch's tasks, the active one, and the counts taps
/// change).
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
