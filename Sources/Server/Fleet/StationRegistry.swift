import Foundation
import Storage
import Wire

/// The `station_heartbeats` table, whose SQL lives here and nowhere else: each organisation's
/// stations, one row each, holding the last heartbeat and when the server heard it. A station is
/// added by its first heartbeat, at most `limit` per organisation; it is forgotten when it has not
/// reported for ``forgetAfter`` or when support removes it. A shift lead's clearing of a station's
/// call for help is kept beside it (``clearHelp(_:since:)``) until the station has heard of it.
///
///     let registry = StationRegistry(db: db, dialect: dialect, org: "acme")
///     guard let recorded = try registry.record(heartbeat, receivedAt: now, clockOffset: 0.2, limit: 500) else { … }
struct StationRegistry {
    let db: any SQLConnection
    let dialect: SQLDialect
    let org: String

    /// One recorded station.
    struct Entry: Sendable {
        var org: String
        var heartbeat: StationHeartbeat
        var receivedAt: Date
        /// The station's clock minus the server's, in seconds, when it said its clock.
        var clockOffset: Double?
    }

    /// A station not heard from for this long is forgotten (pruned with the idempotency keys).
    static let forgetAfter: TimeInterval = 30 * 86_400

    /// What recording a heartbeat did.
    struct Recorded: Equatable {
        /// The `since` of the heartbeat's call for help when a lead has cleared that call: it was
        /// recorded without it, and the station is told to end it.
        var helpCleared: String?
    }

    /// Replaces the station's last heartbeat, or records a new station if the organisation has fewer
    /// than `limit`; returns nil when it is new and the organisation is full. PostgreSQL takes the
    /// organisation's station lock for a new one, so servers side by side never pass the limit. A
    /// call for help a lead cleared is recorded without it; the clearing is forgotten once the
    /// station stops sending that call.
    func record(_ heartbeat: StationHeartbeat, receivedAt: Date, clockOffset: Double?, limit: Int) throws
        -> Recorded?
    {
        if let lock = dialect.lockStationRow { try db.runLater(lock, [org, heartbeat.station]) }
        let cleared = try db.row(
            "SELECT help_cleared_since FROM station_heartbeats WHERE org = ? AND station = ?",
            [org, heartbeat.station]
        )?.optionalString("help_cleared_since")
        var kept = heartbeat
        var helpCleared: String?
        if let help = heartbeat.help, help.since == cleared {
            kept.help = nil
            helpCleared = help.since
        }
        let report = String(decoding: JSONCoding.encode(kept), as: UTF8.self)
        // Milliseconds, bounded: a station's clock years off is still a number that fits.
        let offset = clockOffset.map { Int(max(-1e12, min(1e12, ($0 * 1000).rounded()))) }
        let updated = try db.run(
            """
            UPDATE station_heartbeats SET received_at = ?, heartbeat_seconds = ?, clock_offset_ms = ?, report = ?,
                help_cleared_since = ?
            WHERE org = ? AND station = ?
            """, [receivedAt, heartbeat.heartbeatSeconds, offset, report, helpCleared, org, heartbeat.station])
        if updated > 0 { return Recorded(helpCleared: helpCleared) }
        if let lock = dialect.lockStations { try db.runLater(lock, [org]) }
        let inserted = try db.run(
            """
            INSERT INTO station_heartbeats (org, station, received_at, heartbeat_seconds, clock_offset_ms, report)
            SELECT ?1, ?2, ?3, CAST(?4 AS BIGINT), CAST(?5 AS BIGINT), ?6
            WHERE (SELECT COUNT(*) FROM station_heartbeats WHERE org = ?1) < ?7
            ON CONFLICT (org, station) DO UPDATE SET received_at = excluded.received_at,
                heartbeat_seconds = excluded.heartbeat_seconds, clock_offset_ms = excluded.clock_offset_ms,
                report = excluded.report
            """, [org, heartbeat.station, receivedAt, heartbeat.heartbeatSeconds, offset, report, limit])
        return inserted > 0 ? Recorded(helpCleared: nil) : nil
    }

    /// A lead clears the station's call for help made at `since`: it is taken off the station's last
    /// heartbeat at once, and the station's next heartbeats that still carry it are recorded without
    /// it (and answered so the station ends it). Returns whether that call was the station's (false
    /// when it had ended or a newer one replaced it); nil when the station has not reported.
    func clearHelp(_ station: String, since: String) throws -> Bool? {
        if let lock = dialect.lockStationRow { try db.runLater(lock, [org, station]) }
        guard
            let row = try db.row(
                "SELECT report, help_cleared_since FROM station_heartbeats WHERE org = ? AND station = ?",
                [org, station])
        else { return nil }
        if try row.optionalString("help_cleared_since") == since { return true }
        var heartbeat = try JSONDecoder().decode(StationHeartbeat.self, from: Data(try row.string("report").utf8))
        guard heartbeat.help?.since == since else { return false }
        heartbeat.help = nil
        try db.run(
            "UPDATE station_heartbeats SET report = ?, help_cleared_since = ? WHERE org = ? AND station = ?",
            [String(decoding: JSONCoding.encode(heartbeat), as: UTF8.self), since, org, station])
        return true
    }

    /// The organisation's stations, by name.
    func stations() throws -> [Entry] {
        try db.rows(
            "SELECT org, received_at, clock_offset_ms, report FROM station_heartbeats WHERE org = ? ORDER BY station",
            [org]
        ).map(Self.entry)
    }

    /// Forgets one station; returns whether it was there.
    func remove(_ station: String) throws -> Bool {
        try db.run("DELETE FROM station_heartbeats WHERE org = ? AND station = ?", [org, station]) > 0
    }

    /// Forgets every organisation's stations last heard before `cutoff`; returns how many.
    static func prune(heardBefore cutoff: Date, in db: any SQLConnection) throws -> Int {
        try db.run("DELETE FROM station_heartbeats WHERE received_at < ?", [cutoff])
    }

    private static func entry(_ row: Row) throws -> Entry {
        let report = try row.string("report")
        let heartbeat = try JSONDecoder().decode(StationHeartbeat.self, from: Data(report.utf8))
        return Entry(
            org: try row.string("org"), heartbeat: heartbeat, receivedAt: try row.date("received_at"),
            clockOffset: try row.optionalInt("clock_offset_ms").map { Double($0) / 1000 })
    }
}
