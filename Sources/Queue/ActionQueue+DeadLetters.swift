import Foundation
import JSONText
import SQLiteStorage
import Timestamps
import Wire

/// Support's work on dead letters (retry, retry under a new key, clear) and the station log that
/// records it. Parking a pending action is in `ActionQueue+Park`.
extension ActionQueue {
    /// Whether `name` can stand in the station log as who did something: 1–64 characters, not all
    /// blank, with none of the characters the API refuses in text (control characters, line
    /// separators, bidirectional overrides that make a name read as another: ``FieldRules``).
    public static func isSupportName(_ name: String) -> Bool {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { return false }
        do {
            try FieldRules.text(name, field: "by", maxLength: 64)
            return true
        } catch {
            return false
        }
    }

    /// Puts a dead action back in line (it keeps its place by age and its idempotency key).
    public func retry(_ id: Int, by actor: String) throws(QueueError) {
        try changeDead(id) { db, action in
            try db.run(
                "UPDATE actions SET state = 'pending', next_attempt_at = NULL, updated_at = ? WHERE id = ?",
                [Timestamp.iso8601(), id])
            try Self.log(db, event: "retry", action: action, actor: actor)
        }
    }

    /// Puts back in line, in one transaction, every dead letter the server refused with HTTP `status`
    /// (at most `limit`, the oldest): support's way out after fixing what made the server refuse them
    /// all. Each is recorded in the station log under `actor`. Returns their ids.
    public func retryAll(refusedWith status: Int, by actor: String, limit: Int = 10_000) throws(QueueError) -> [Int] {
        do {
            return try database.write { db in
                try db.transaction {
                    let dead = try db.rows(
                        "SELECT * FROM actions WHERE state = 'dead' AND last_status = ? ORDER BY id LIMIT ?",
                        [status, max(0, limit)]
                    ).map(QueuedAction.init)
                    let now = Timestamp.iso8601()
                    for action in dead {
                        try db.run(
                            "UPDATE actions SET state = 'pending', next_attempt_at = NULL, updated_at = ? WHERE id = ?",
                            [now, action.id])
                        try Self.log(db, event: "retry", action: action, actor: actor)
                    }
                    return dead.map(\.id)
                }
            }
        } catch let error as QueueError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// Puts a dead action back in line under a fresh idempotency key and the time of now, for one the
    /// server refused as too old to deduplicate after support checked it was never counted. The old
    /// key and time stay in the station log with the new key.
    public func retryAsNew(_ id: Int, by actor: String, now: Date = Date()) throws(QueueError) {
        try changeDead(id) { db, action in
            guard var body = try? JSONSerialization.jsonObject(with: Data(action.payload)) as? [String: Any] else {
                throw QueueError.storage("action #\(id)'s stored body is not a JSON object")
            }
            let key = ActionKey.make()
            body["idempotencyKey"] = key
            body[action.kind.timeField] = Timestamp.iso8601(now)
            let payload = try JSONSerialization.data(
                withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
            try db.run(
                """
                UPDATE actions SET state = 'pending', next_attempt_at = NULL, idempotency_key = ?, payload = ?, updated_at = ?
                WHERE id = ?
                """, [key, [UInt8](payload), Timestamp.iso8601(now), id])
            try Self.log(db, event: "retry-as-new", action: action, actor: actor, newKey: key)
        }
    }

    /// Removes a dead action, keeping a full record of it in the station log.
    public func clear(_ id: Int, by actor: String) throws(QueueError) {
        try changeDead(id) { db, action in
            try db.run("DELETE FROM actions WHERE id = ?", [id])
            try Self.log(db, event: "clear", action: action, actor: actor)
        }
    }

    /// The station log (retries and clears), newest first.
    public func log(limit: Int = 100) throws -> [StationLogEntry] {
        try database.read { db in
            try db.rows("SELECT * FROM station_log ORDER BY id DESC LIMIT ?", [limit]).map { row in
                StationLogEntry(
                    at: try row.string("at"), event: try row.string("event"),
                    actionId: try row.optionalInt("action_id"),
                    actor: try row.optionalString("actor"), detail: try row.string("detail"))
            }
        }
    }

    private func changeDead(_ id: Int, _ change: @escaping (Database, QueuedAction) throws -> Void) throws(QueueError) {
        do {
            try database.write { db in
                try db.transaction {
                    guard let action = try db.row("SELECT * FROM actions WHERE id = ?", [id]).map(QueuedAction.init)
                    else {
                        throw QueueError.noSuchAction(id)
                    }
                    guard action.state == .dead else { throw QueueError.notDead(id, action.state) }
                    try change(db, action)
                }
            }
        } catch let error as QueueError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    static func log(
        _ db: Database, event: String, action: QueuedAction, actor: String, newKey: String? = nil, newId: Int? = nil
    ) throws {
        var detail = JSONObjectWriter()
        if let newId { detail.add("newId", number: newId) }
        detail.add("org", string: action.org)
        detail.add("kind", string: action.kind.rawValue)
        detail.add("pickTaskId", string: action.pickTaskId)
        detail.add("label", string: action.label)
        detail.add("idempotencyKey", string: action.idempotencyKey)
        if let newKey { detail.add("newIdempotencyKey", string: newKey) }
        detail.add("tries", number: action.tries)
        if let status = action.lastStatus { detail.add("lastStatus", number: status) }
        if let error = action.lastError { detail.add("lastError", string: error) }
        detail.add("payload", string: String(decoding: action.payload, as: UTF8.self))
        try db.run(
            "INSERT INTO station_log (at, event, action_id, actor, detail) VALUES (?, ?, ?, ?, ?)",
            [Timestamp.iso8601(), event, action.id, actor, detail.finished()])
    }
}

/// One entry of the station log: what support did to the queue, when, and by whom.
public struct StationLogEntry: Sendable, Equatable {
    public var at: String
    public var event: String
    public var actionId: Int?
    public var actor: String?
    /// The action as it was (JSON), so cleared work can be reconstructed.
    public var detail: String
}
