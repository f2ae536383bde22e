import Foundation
import SQLiteStorage

/// What the queue holds, as status screens, `scanpick queue` and the pick list read it.
extension ActionQueue {
    /// Every action, oldest first (optionally only some states).
    public func actions(in states: Set<ActionState> = Set(ActionState.allCases)) throws -> [QueuedAction] {
        try database.read { db in
            try db.rows("SELECT * FROM actions ORDER BY id").map(QueuedAction.init).filter { states.contains($0.state) }
        }
    }

    /// What a screen that polls the queue shows, bounded in SQL whatever the queue holds: the oldest
    /// `unsentLimit` actions not sent (pending, in flight, dead) and the newest `sentLimit` sent
    /// ones (sent actions are kept for `sentRetentionHours`, up to a year), oldest first.
    public func recentActions(unsentLimit: Int, sentLimit: Int) throws -> [QueuedAction] {
        try database.read { db in
            try db.rows(
                """
                SELECT * FROM (SELECT * FROM actions WHERE state IN ('pending', 'inFlight', 'dead') ORDER BY id LIMIT ?)
                UNION ALL
                SELECT * FROM (SELECT * FROM actions WHERE state = 'sent' ORDER BY id DESC LIMIT ?)
                ORDER BY id
                """, [unsentLimit, sentLimit]
            ).map(QueuedAction.init)
        }
    }

    public func action(_ id: Int) throws -> QueuedAction? {
        try database.read { db in try db.row("SELECT * FROM actions WHERE id = ?", [id]).map(QueuedAction.init) }
    }

    /// How many actions are in each state (of `org`'s, or of every organisation's), the last delivery
    /// time, and when the oldest unsent action was queued (one scan of the table, as before).
    public func counts(org: String? = nil) throws -> QueueCounts {
        try database.read { db in
            var counts = QueueCounts()
            for row in try db.rows(
                """
                SELECT state, COUNT(*) AS n, MIN(created_at) AS oldest, MAX(created_at) AS newest FROM actions
                WHERE CAST(?1 AS TEXT) IS NULL OR org = ?1 GROUP BY state
                """, [org])
            {
                let n = try row.int("n")
                let state = ActionState(rawValue: try row.string("state"))
                if let newest = try row.optionalString("newest") {
                    counts.newestQueuedAt = max(counts.newestQueuedAt ?? newest, newest)
                }
                if state == .pending || state == .inFlight, let oldest = try row.optionalString("oldest") {
                    counts.oldestUnsentAt = min(counts.oldestUnsentAt ?? oldest, oldest)
                }
                switch state {
                case .pending: counts.pending = n
                case .inFlight: counts.inFlight = n
                case .sent: counts.sent = n
                case .dead: counts.dead = n
                case nil: break
                }
            }
            counts.lastSyncAt = try db.row("SELECT value FROM queue_state WHERE key = 'lastSyncAt'")?.string("value")
            return counts
        }
    }

    /// Pick tasks with an action not yet confirmed sent (pending or inFlight), for the pick list.
    public func tasksWithUnsentActions(org: String) throws -> Set<String> {
        try database.read { db in try Self.tasksWithUnsentActions(org: org, in: db) }
    }

    /// Pick tasks with an action not yet confirmed sent, or sent at or after `sentSince` (when given),
    /// read on `db` so a caller can decide inside its own transaction.
    public static func tasksWithUnsentActions(org: String, sentSince: Date? = nil, in db: Database) throws
        -> Set<String>
    {
        Set(
            try db.rows(
                """
                SELECT DISTINCT pick_task_id FROM actions WHERE org = ?
                  AND (state IN ('pending', 'inFlight') OR (state = 'sent' AND sent_at >= ?))
                """, [org, sentSince]
            ).map { try $0.string("pick_task_id") })
    }

    /// Pick tasks with a dead letter (an action the server refused) that support has not yet retried
    /// or cleared: their rows are marked, so a count reset by the next refresh is never a surprise.
    public func tasksWithRefusedActions(org: String) throws -> Set<String> {
        try database.read { db in
            Set(
                try db.rows("SELECT DISTINCT pick_task_id FROM actions WHERE org = ? AND state = 'dead'", [org]).map {
                    try $0.string("pick_task_id")
                })
        }
    }
}
