import Foundation
import SQLiteStorage
import Timestamps

/// Support's way past a pending action: set aside as dead, or moved behind the rest of the line.
extension ActionQueue {
    /// Support's way past a pending action: one that a pause holds back (its organisation's, or the
    /// whole queue's) is set aside as dead, to retry or clear later (its organisation was removed
    /// from the config, an imported action for an organisation this station does not serve); any
    /// other moves behind the rest of the line, keeping its idempotency key, so the actions behind
    /// one the server keeps failing (``StuckAction``) go first. Moving takes a new id (the line is
    /// ordered by id); it never passes a newer unsent action it does not commute with (a
    /// set-quantity or short of its task, either way round, or a batch close). Read,
    /// checked and changed in one transaction (an action a drain pass has in flight is refused);
    /// recorded in the station log.
    @discardableResult
    public func park(_ id: Int, by actor: String, now: Date = Date()) throws(QueueError) -> Parked {
        do {
            return try database.write { db in
                try db.transaction {
                    guard let action = try db.row("SELECT * FROM actions WHERE id = ?", [id]).map(QueuedAction.init)
                    else { throw QueueError.noSuchAction(id) }
                    guard action.state == .pending else { throw QueueError.notPending(id, action.state) }
                    let pauses = try Self.pauses(db)
                    if let pause = pauses.first(where: { $0.org == nil || $0.org == action.org }) {
                        try Self.setAside(action, because: pause, by: actor, now: now, in: db)
                        return .dead
                    }
                    return try Self.moveBehind(action, by: actor, now: now, in: db)
                }
            }
        } catch let error as QueueError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// What ``park(_:by:now:)`` did.
    public enum Parked: Sendable, Equatable {
        /// A pause held it back: it is a dead letter now, under its own id.
        case dead
        /// It went behind `behind` unsent actions, under the new id `newId`.
        case movedBehind(behind: Int, newId: Int)
    }

    private static func setAside(
        _ action: QueuedAction, because pause: QueuePause, by actor: String, now: Date, in db: Database
    ) throws {
        try db.run(
            "UPDATE actions SET state = 'dead', last_error = ?, next_attempt_at = NULL, updated_at = ? WHERE id = ?",
            [
                "parked by \(actor) while the queue waited (\(pause.attention.code)): \(pause.attention.message)",
                Timestamp.iso8601(now), action.id,
            ])
        try Self.log(db, event: "park", action: action, actor: actor)
        try forgetFailing(action.id, in: db)
        // An organisation's pause with nothing left to hold back has nothing to say.
        try db.run(
            """
            DELETE FROM queue_state WHERE key = ?1
              AND NOT EXISTS (SELECT 1 FROM actions WHERE org = ?2 AND state IN ('pending', 'inFlight'))
            """, [Self.pauseKey(action.org), action.org])
    }

    private static func moveBehind(_ action: QueuedAction, by actor: String, now: Date, in db: Database) throws
        -> Parked
    {
        // Increments (picks, scans) add up in any order. A set-quantity or a short does not commute
        // with another action of its task, and a batch close must stay after the taps queued before it.
        let clash = try db.row(
            """
            SELECT id, label FROM actions WHERE org = ?1 AND id > ?2 AND state IN ('pending', 'inFlight')
              AND ((pick_task_id = ?3 AND (kind NOT IN ('pick', 'scan') OR ?4 NOT IN ('pick', 'scan'))) OR kind = 'close')
            ORDER BY id LIMIT 1
            """, [action.org, action.id, action.pickTaskId, action.kind.rawValue])
        if let clash {
            throw QueueError.wouldReorder(
                action.id,
                "#\(try clash.int("id")) \(try clash.string("label")) is newer, and the two do not go in either order (a set-quantity or a short of the same task, or a batch close): sent the other way round the outcome would differ"
            )
        }
        let behind =
            try db.row(
                "SELECT COUNT(*) AS n FROM actions WHERE id > ? AND state IN ('pending', 'inFlight')", [action.id]
            )?.int("n") ?? 0
        try db.run("DELETE FROM actions WHERE id = ?", [action.id])
        try db.run(
            """
            INSERT INTO actions (org, kind, pick_task_id, label, payload, idempotency_key, state, tries, created_at,
                updated_at, next_attempt_at, last_status, last_error)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, NULL, ?, ?)
            """,
            [
                action.org, action.kind.rawValue, action.pickTaskId, action.label, action.payload,
                action.idempotencyKey, action.tries, action.createdAt, Timestamp.iso8601(now), action.lastStatus,
                action.lastError,
            ])
        let newId = try db.row("SELECT last_insert_rowid() AS id")?.int("id") ?? 0
        try Self.log(db, event: "park", action: action, actor: actor, newId: newId)
        try forgetFailing(action.id, in: db)
        return .movedBehind(behind: behind, newId: newId)
    }
}
