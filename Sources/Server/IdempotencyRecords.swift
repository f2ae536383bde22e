import Foundation
import Storage

/// The `idempotency_keys` table, whose SQL lives here and nowhere else: each key's first answer,
/// stored in the same transaction as the change it answers and kept for the retention window, so a
/// resend is answered with it byte for byte instead of counting again.
///
///     let records = IdempotencyRecords(db: db, dialect: dialect, org: org)
///     if case .stored(let hash, let status, let body) = try records.claim(key) { … }
struct IdempotencyRecords {
    let db: any SQLConnection
    let dialect: SQLDialect
    let org: String
    /// The station that sent the request (`X-ScanPick-Station`), recorded with the key.
    var station: String? = nil

    /// What the table holds for a key.
    enum Lookup: Equatable {
        /// Another transaction (in any server process) is running a request with this key.
        case claimedElsewhere
        /// No answer is stored: this request is the first.
        case unknown
        /// The first request's fingerprint and answer.
        case stored(requestHash: String, status: Int, body: [UInt8])
    }

    /// Looks `key` up and, on PostgreSQL, claims it until commit without waiting, in one round trip.
    /// SQLite runs one write transaction at a time, so its claim always holds.
    ///
    /// On PostgreSQL the lookup's snapshot is taken just before the claim, so a request that stored
    /// the key in between is not seen: this one then runs, and its insert of the key fails the
    /// primary key at commit, which rolls it back whole (the store answers ``PickingError/keyInUse``).
    /// The unique key is the guarantee of one effect; the claim only makes the common case cheap.
    func claim(_ key: String) throws -> Lookup {
        let row = try db.row(dialect == .sqlite ? Self.claimQuery.sqlite : Self.claimQuery.postgres, [org, key])
        guard let row, try row.int("claimed") == 1 else { return .claimedElsewhere }
        guard let hash = try row.optionalString("request_hash") else { return .unknown }
        return .stored(requestHash: hash, status: try row.int("status"), body: try row.bytes("body"))
    }

    /// The claim's statement on each engine, written once (it runs on every idempotent write).
    private static let claimQuery = (sqlite: claimQuery(.sqlite), postgres: claimQuery(.postgres))

    private static func claimQuery(_ dialect: SQLDialect) -> String {
        """
        SELECT \(dialect.claimIdempotencyKey("?1", "?2")) AS claimed, k.request_hash, k.status, k.body
        FROM (SELECT 1 AS one) AS one LEFT JOIN idempotency_keys k ON k.org = ?1 AND k.key = ?2
        """
    }

    /// Stores the first answer for `key`, in the transaction of the change it answers.
    func store(_ key: String, requestHash: String, status: Int, body: [UInt8], at now: Date) throws {
        try db.runLater(
            """
            INSERT INTO idempotency_keys (org, key, request_hash, status, body, created_at, station)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [org, key, requestHash, status, body, now, station])
    }

    /// Deletes up to `limit` of the answers (of every organisation) stored before `cutoff`; returns
    /// how many. Fewer than `limit` means none is left to delete.
    static func prune(
        storedBefore cutoff: Date, now: Date, atMost limit: Int, in db: any SQLConnection, dialect: SQLDialect
    ) throws -> Int {
        let statement = dialect.pruneIdempotencyKeys(storedBefore: cutoff, now: now, limit: limit)
        return try db.run(statement.sql, statement.arguments)
    }
}
