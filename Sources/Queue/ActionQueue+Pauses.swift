import Foundation
import SQLiteStorage
import Timestamps

/// Pauses: the server refused the station itself, or one organisation's token, so the queue (or
/// that organisation's actions) waits; kept in `queue_state` where every `scanpick` process sees them.
extension ActionQueue {
    /// Why the queue is paused, or nil when it is not: the station-wide pause, else the first
    /// organisation's (see ``pauses()``).
    public func pause() throws -> QueuePause? {
        try pauses().first
    }

    /// Every pause in force, the station-wide one first, then each organisation's by name. Persisted,
    /// so every `scanpick` process sees them.
    public func pauses() throws -> [QueuePause] {
        try database.read { db in try Self.pauses(db) }
    }

    /// Lifts the pauses (the config was corrected): the next pass tries the heads at once. With
    /// `org`, only the station-wide pause and that organisation's (an answer for one of its actions
    /// shows both are mended; another organisation's token may still be wrong).
    public func resume(org: String? = nil) throws {
        try database.write { db in
            if let org {
                _ = try db.run("DELETE FROM queue_state WHERE key IN ('pause', ?)", [Self.pauseKey(org)])
            } else {
                _ = try db.run("DELETE FROM queue_state WHERE key = 'pause' OR key LIKE 'pause:%'")
            }
        }
    }

    /// Where a pause is kept in `queue_state`: `pause` for the whole queue, `pause:ORG` for one
    /// organisation's actions.
    static func pauseKey(_ org: String?) -> String {
        org.map { "pause:" + $0 } ?? "pause"
    }

    static func pauses(_ db: Database) throws -> [QueuePause] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamp.date(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
            }
            return date
        }
        return try db.rows("SELECT key, value FROM queue_state WHERE key = 'pause' OR key LIKE 'pause:%' ORDER BY key")
            .map { row in
                do {
                    return try decoder.decode(QueuePause.self, from: Data(try row.string("value").utf8))
                } catch {
                    // Never read as "not paused": the queue would send what a pause holds back.
                    throw QueueError.storage(
                        "the queue's stored pause \(try row.string("key")) cannot be read (\(error)); a corrected config (or SIGHUP to the station) clears it"
                    )
                }
            }
    }

    /// Puts the in-flight action `id` back in line untouched (no try counted: it was not its fault)
    /// and pauses until `retryAt` the whole queue, or with `org` only that organisation's actions,
    /// both in one transaction.
    func pause(_ id: Int, org: String? = nil, because attention: Attention, retryAt: Date, now: Date) throws {
        let pause = QueuePause(attention: attention, since: Timestamp.iso8601(now), retryAt: retryAt, org: org)
        try bookkeeping { db in
            try db.transaction {
                try db.run(
                    "UPDATE actions SET state = 'pending', updated_at = ? WHERE id = ? AND state = 'inFlight'",
                    [Timestamp.iso8601(now), id])
                try Self.store(pause, in: db)
            }
        }
    }

    static func store(_ pause: QueuePause, in db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.iso8601(date))
        }
        try db.run(
            "INSERT INTO queue_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [Self.pauseKey(pause.org), String(decoding: try encoder.encode(pause), as: UTF8.self)])
    }
}

/// Why the queue, or one organisation's actions, is paused and until when it waits before looking
/// again (a corrected config, or `scanpick drain`, looks at once).
public struct QueuePause: Sendable, Equatable, Codable {
    public var attention: Attention
    /// When the pause began (ISO 8601).
    public var since: String
    /// When the drainer next tries the head on its own.
    public var retryAt: Date
    /// The organisation whose actions wait (its token was refused, or it has none), or nil when the
    /// whole queue waits (the server's address, TLS, the worker id).
    public var org: String?
}
