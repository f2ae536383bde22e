import Foundation
import SQLiteStorage
import Timestamps

/// The head of the line the server keeps failing (5xx, 429), shown as a ``StuckAction``.
extension ActionQueue {
    /// Where the queue keeps which action the server has been failing since when:
    /// `{"id": N, "since": TIME}`. Only the head of the line is tried until it goes, so one record
    /// is enough; it ends when the action is sent, dead, or moved.
    private static let failingKey = "failingHead"

    private struct Failing: Codable {
        var id: Int
        var since: String
    }

    /// Notes that the server failed action `id` at `now`, keeping the earlier time if it already
    /// failed it before.
    static func noteFailing(_ id: Int, since now: Date, in db: Database) throws {
        if let stored = try failing(in: db), stored.id == id { return }
        let value = String(
            decoding: try JSONEncoder().encode(Failing(id: id, since: Timestamp.iso8601(now))), as: UTF8.self)
        try db.run(
            "INSERT INTO queue_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [failingKey, value])
    }

    static func forgetFailing(_ id: Int, in db: Database) throws {
        guard let stored = try failing(in: db), stored.id == id else { return }
        try db.run("DELETE FROM queue_state WHERE key = ?", [failingKey])
    }

    /// The stored record, or nil (none, or one that does not read: it is only ever advice).
    private static func failing(in db: Database) throws -> Failing? {
        guard let text = try db.row("SELECT value FROM queue_state WHERE key = ?", [failingKey])?.string("value")
        else { return nil }
        return try? JSONDecoder().decode(Failing.self, from: Data(text.utf8))
    }

    /// The action the server has been failing (5xx, 429 and the like) for at least `after` seconds
    /// at `now`, with at least ``StuckAction/minimumTries`` tries, while it is still waiting to go;
    /// nil when there is none.
    public func stuckAction(now: Date, after: TimeInterval) throws -> StuckAction? {
        try database.read { db in
            guard let failing = try Self.failing(in: db), let since = Timestamp.date(failing.since),
                now.timeIntervalSince(since) >= after,
                let action = try db.row("SELECT * FROM actions WHERE id = ?", [failing.id]).map(QueuedAction.init),
                action.state == .pending || action.state == .inFlight, action.tries >= StuckAction.minimumTries
            else { return nil }
            let behind =
                try db.row(
                    "SELECT COUNT(*) AS n FROM actions WHERE id > ? AND state IN ('pending', 'inFlight')", [action.id]
                )?.int("n") ?? 0
            return StuckAction(
                id: action.id, label: action.label, lastStatus: action.lastStatus, failingSince: since,
                tries: action.tries, behind: behind)
        }
    }
}
