import Foundation
import Storage

/// The statements that differ between the engines. SQLite serialises every write transaction, so it
/// needs none of these locks; PostgreSQL runs transactions side by side (READ COMMITTED) and needs
/// each one.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// Whether transactions run side by side, so a read that a write depends on must lock its rows
    /// first (PostgreSQL, READ COMMITTED); SQLite serialises every write transaction.
    var locksRows: Bool {
        switch self {
        case .sqlite: false
        case .postgres: true
        }
    }

    /// The texts of the JSON array of strings bound to `parameter`, as rows of one column (for
    /// `IN (…)`): one statement whatever the length of the list.
    func textsOfJSONArray(_ parameter: String) -> String {
        switch self {
        case .sqlite: "SELECT value FROM json_each(\(parameter))"
        case .postgres: "SELECT json_array_elements_text(CAST(\(parameter) AS json))"
        }
    }

    /// The rows of the JSON array bound to `parameter`, named `alias` (its items are `alias.value`).
    func jsonArray(_ parameter: String, as alias: String) -> String {
        switch self {
        case .sqlite: "json_each(\(parameter)) AS \(alias)"
        case .postgres: "json_array_elements(CAST(\(parameter) AS json)) AS \(alias)(value)"
        }
    }

    /// The rows of the JSON array in field `field` of each item of `outer`, named `alias`.
    func jsonArray(field: String, of outer: String, as alias: String) -> String {
        switch self {
        case .sqlite: "json_each(\(outer).value, '$.\(field)') AS \(alias)"
        case .postgres: "json_array_elements(\(outer).value->'\(field)') AS \(alias)(value)"
        }
    }

    /// Field `field` (a string) of the JSON object in row `alias`.
    func jsonText(_ alias: String, _ field: String) -> String {
        switch self {
        case .sqlite: "json_extract(\(alias).value, '$.\(field)')"
        case .postgres: "\(alias).value->>'\(field)'"
        }
    }

    /// Field `field` (a whole number) of the JSON object in row `alias`.
    func jsonInteger(_ alias: String, _ field: String) -> String {
        switch self {
        case .sqlite: "json_extract(\(alias).value, '$.\(field)')"
        case .postgres: "CAST(\(alias).value->>'\(field)' AS BIGINT)"
        }
    }

    /// A new random identifier made by the database: `prefix` and 16 hex digits, as
    /// `PickingStore.newIdentifier()` makes them.
    func newIdentifier(prefix: String) -> String {
        switch self {
        case .sqlite: "'\(prefix)' || lower(hex(randomblob(8)))"
        case .postgres: "'\(prefix)' || substr(replace(CAST(gen_random_uuid() AS TEXT), '-', ''), 1, 16)"
        }
    }

    /// Takes an organisation's batching lock until commit, so two batches never take the same line.
    var lockBatching: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('batching' || chr(10) || ?, 0))"
        }
    }

    /// Takes an organisation's station lock until commit, so servers side by side adding stations
    /// never pass the organisation's limit.
    var lockStations: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('stations' || chr(10) || ?, 0))"
        }
    }

    /// Takes an organisation's fleet-session lock until commit, so servers side by side signing leads
    /// in never keep more than the organisation's limit of sessions.
    var lockFleetSessions: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('fleet sessions' || chr(10) || ?, 0))"
        }
    }

    /// Locks one station's row until commit where transactions run side by side (PostgreSQL), so a
    /// heartbeat and a lead clearing its call for help never both read the row before either writes.
    var lockStationRow: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT 1 AS locked FROM station_heartbeats WHERE org = ? AND station = ? FOR UPDATE"
        }
    }

    /// The statement, with its arguments, that deletes at most `limit` of the answers stored before
    /// `cutoff` (see ``IdempotencyRecords/prune(storedBefore:now:atMost:in:dialect:)``); fewer than
    /// `limit` means none is left to delete. SQLite appends answers to a rowid table in the order
    /// they are stored (`server-6`), so the expired ones come first: the statement takes the oldest
    /// `limit` rows and deletes those before the first one still kept, reading `limit` rows a pass
    /// whatever the table's size, with no index of ages to write on every store. A clock set back
    /// only keeps answers longer; an answer dated past `now` plus ``futureDateTolerance`` (a clock
    /// once set ahead) is kept by its own date and passed over.
    func pruneIdempotencyKeys(storedBefore cutoff: Date, now: Date, limit: Int) -> (
        sql: String, arguments: [any DatabaseValueConvertible]
    ) {
        switch self {
        case .sqlite:
            (
                """
                WITH oldest AS (
                    SELECT rowid AS id, created_at FROM idempotency_keys WHERE created_at <= ?2
                    ORDER BY rowid LIMIT ?3)
                DELETE FROM idempotency_keys WHERE rowid IN (
                    SELECT id FROM oldest WHERE created_at < ?1
                    AND id < COALESCE((SELECT MIN(id) FROM oldest WHERE created_at >= ?1), 9223372036854775807))
                """, [cutoff, now.addingTimeInterval(Self.futureDateTolerance), limit]
            )
        case .postgres:
            (
                """
                DELETE FROM idempotency_keys WHERE (org, key) IN (
                    SELECT org, key FROM idempotency_keys WHERE created_at < ?1 LIMIT ?2)
                """, [cutoff, limit]
            )
        }
    }

    /// How far past the server's clock a stored answer's date may be and still be taken as the
    /// place where SQLite's pruning stops (seconds).
    static let futureDateTolerance: TimeInterval = 86_400

    /// An expression that claims idempotency key `key` of organisation `org` (both placeholders)
    /// until commit without waiting: 1 when claimed, 0 when another transaction (in any server
    /// process) holds it. SQLite runs one write transaction at a time, so its claim always holds.
    func claimIdempotencyKey(_ org: String, _ key: String) -> String {
        switch self {
        case .sqlite: "1"
        case .postgres: "pg_try_advisory_xact_lock(hashtextextended(\(org) || chr(10) || \(key), 1))::int"
        }
    }
}
