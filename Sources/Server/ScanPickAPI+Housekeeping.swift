import Foundation
import Storage

/// The server's periodic work (run by ``Housekeeping``) and `scanpick migrate`'s.
extension ScanPickAPI {
    /// How many stored answers one pruning transaction deletes at most: an overdue prune (a server
    /// that was off for weeks) goes in many short transactions, so it never holds the writer long.
    public static let pruneBatch = 2_000

    /// Deletes stored idempotency results older than the retention period, at most `batch` per
    /// transaction, each a bulk write that quick ones go before; returns how many.
    @discardableResult
    public func pruneIdempotencyKeys(now: Date = Date(), batch: Int = pruneBatch) throws -> Int {
        let cutoff = now.addingTimeInterval(-Double(retentionDays) * 86_400)
        let dialect = store.dialect
        let batch = max(1, batch)
        var total = 0
        while true {
            let deleted = try store.write(.bulk) { db in
                try IdempotencyRecords.prune(storedBefore: cutoff, now: now, atMost: batch, in: db, dialect: dialect)
            }
            total += deleted
            if deleted < batch { return total }
        }
    }

    /// How often `scanpick serve` looks for complete batches to close: a tenth of
    /// `batches.autoCloseMinutes`, from 0.1 s to a minute, so a batch closes at most that long after
    /// its time.
    public var batchAutoCloseInterval: Duration {
        min(.seconds(60), max(.milliseconds(100), batchAutoClose / 10))
    }

    /// How many batches one closing transaction closes at most.
    static let closeBatch = 1_000

    /// Closes every complete batch (of every organisation) unchanged for `batches.autoCloseMinutes`
    /// at `now`, at most ``closeBatch`` per transaction, each a bulk write that quick ones go before;
    /// returns how many.
    @discardableResult
    public func closeIdleBatches(now: Date = Date()) throws -> Int {
        let seconds = Double(batchAutoClose.components.seconds) + Double(batchAutoClose.components.attoseconds) / 1e18
        let cutoff = now.addingTimeInterval(-seconds)
        var total = 0
        while true {
            let closed = try store.write(.bulk) { db in
                try PickingStore.closeIdleBatches(before: cutoff, now: now, limit: Self.closeBatch, in: db)
            }
            total += closed
            if closed < Self.closeBatch { return total }
        }
    }

    /// Forgets stations not heard from for ``StationRegistry/forgetAfter``; returns how many.
    @discardableResult
    public func forgetSilentStations(now: Date = Date()) throws -> Int {
        let cutoff = now.addingTimeInterval(-StationRegistry.forgetAfter)
        return try store.write(.bulk) { db in try StationRegistry.prune(heardBefore: cutoff, in: db) }
    }

    /// Deletes the fleet page's sessions that have ended; returns how many.
    @discardableResult
    public func forgetEndedFleetSessions(now: Date = Date()) throws -> Int {
        let dialect = store.dialect
        return try store.write(.bulk) { db in try FleetSessions(db: db, dialect: dialect).prune(now: now) }
    }

    /// Applies the pending schema migrations to `database` without serving (`scanpick migrate`);
    /// returns the identifiers applied, empty when it was up to date. Refuses a newer schema.
    public static func migrate(_ database: ServerDatabase) throws -> [String] {
        try database.migrate()
    }

    /// The schema migrations `database` has applied (with when), those pending, and any it has
    /// applied that this scanpick does not know (`scanpick migrate --status` and `--dry-run`).
    public static func migrationStatus(_ database: ServerDatabase) throws -> (
        applied: [(identifier: String, appliedAt: String)], pending: [String], unknown: [String]
    ) {
        try database.migrationStatus()
    }
}
