import Foundation
import SQLiteStorage
import Timestamps

/// Queuing an action: alone, beside the caller's local change, or inside its own transaction.
extension ActionQueue {
    /// Queues `action` durably, running `alongside` (the caller's local change) in the same
    /// transaction; returns the action's id.
    @discardableResult
    public func enqueue(_ action: NewAction, alongside: ((Database) throws -> Void)? = nil) throws -> Int {
        try transaction { db in
            try alongside?(db)
            return try Self.insert(action, in: db)
        }
    }

    /// Runs `body` in one immediate write transaction, durable when this returns: the caller reads,
    /// checks and changes its rows and queues its action with ``insert(_:in:)``, all or nothing, so
    /// no other writer (another thread, another `scanpick` process) can slip in between.
    ///
    ///     let id = try queue.transaction { db in
    ///         guard try db.run("UPDATE t SET n = n + 1 WHERE id = ? AND n < 5", [row]) == 1 else { throw Full() }
    ///         return try ActionQueue.insert(action, in: db)
    ///     }
    public func transaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try database.write { db in try db.transaction { try body(db) } }
    }

    /// Inserts `action` as pending inside the caller's transaction; returns its id. Its payload must
    /// be a JSON object carrying its own key (``QueueError/badPayload(_:)`` otherwise): a body that
    /// could never be sent as this action is refused now, not found dead later.
    public static func insert(_ action: NewAction, in db: Database) throws -> Int {
        guard let body = try? JSONSerialization.jsonObject(with: Data(action.payload)) as? [String: Any],
            body["idempotencyKey"] as? String == action.idempotencyKey
        else { throw QueueError.badPayload(action.label) }
        let now = Timestamp.iso8601()
        try db.run(
            """
            INSERT INTO actions (org, kind, pick_task_id, label, payload, idempotency_key, state, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)
            """,
            [
                action.org, action.kind.rawValue, action.pickTaskId, action.label, action.payload,
                action.idempotencyKey, now, now,
            ])
        return try db.row("SELECT last_insert_rowid() AS id")?.int("id") ?? 0
    }
}
