import Foundation
import SQLiteStorage
import Timestamps

/// The drainer's side of the queue: it recovers actions a dead drainer left in flight, claims the
/// head of the line, and records each try's outcome, all with ``bookkeeping(_:)``'s cheaper commits.
/// Its pauses are in `ActionQueue+Pauses`.
extension ActionQueue {
    /// Returns every inFlight action to pending: run by a drainer that holds the drain lock, so any
    /// inFlight row is a leftover of a drainer that died mid-send (the server's idempotency makes the
    /// resend safe).
    @discardableResult
    func recoverInFlight() throws -> Int {
        try database.write { db in
            try db.run(
                "UPDATE actions SET state = 'pending', updated_at = ? WHERE state = 'inFlight'", [Timestamp.iso8601()])
        }
    }

    /// The head of the line (the oldest pending action of an organisation that is not paused, nor
    /// in `skipping`), marked in flight when it is due at `now` (or whenever, when
    /// `honouringBackoff` is false: stored pauses are then looked past too); `.notDue` when it must
    /// wait, `.paused` while the whole queue is paused, or every organisation with pending work is,
    /// and its next look is still ahead; nil when none. A pause of one organisation holds back its
    /// actions only: the others keep their order and go on. No wait is ever longer than
    /// `longestWait` from `now`, whatever is stored: a clock set back (an NTP correction, a dead
    /// RTC battery) leaves times far in the future that would otherwise stall the queue.
    func claimHead(now: Date, honouringBackoff: Bool, longestWait: TimeInterval, skipping: Set<String> = [])
        throws -> Claim?
    {
        // Read, checked and marked in one transaction: a park in another process cannot move the
        // head between the look and the mark.
        try bookkeeping { db in
            try db.transaction {
                try claimHead(
                    in: db, now: now, honouringBackoff: honouringBackoff, longestWait: longestWait, skipping: skipping)
            }
        }
    }

    private func claimHead(
        in db: Database, now: Date, honouringBackoff: Bool, longestWait: TimeInterval, skipping: Set<String>
    ) throws -> Claim? {
        let latest = now.addingTimeInterval(longestWait)
        /// A stored pause still ahead, capped where it is stored so it comes due by `latest`.
        func active(_ pause: QueuePause) throws -> QueuePause? {
            guard honouringBackoff, pause.retryAt > now else { return nil }
            guard pause.retryAt > latest else { return pause }
            var capped = pause
            capped.retryAt = latest
            try Self.store(capped, in: db)
            return capped
        }
        let pauses = try Self.pauses(db)
        if let stationWide = pauses.first(where: { $0.org == nil }), let pause = try active(stationWide) {
            guard try db.row("SELECT 1 AS found FROM actions WHERE state = 'pending' LIMIT 1") != nil else {
                return nil
            }
            return .paused(pause)
        }
        var held: [String: QueuePause] = [:]
        for pause in pauses {
            if let org = pause.org, let pause = try active(pause) { held[org] = pause }
        }
        let excluded = skipping.union(held.keys).sorted()
        let placeholders = excluded.map { _ in "?" }.joined(separator: ", ")
        guard
            let head = try db.row(
                "SELECT * FROM actions WHERE state = 'pending' AND org NOT IN (\(placeholders)) ORDER BY id LIMIT 1",
                excluded.map { $0 }
            ).map(QueuedAction.init)
        else {
            // Only held organisations have work left: say so, with the first of them to look again.
            let waiting = try Set(
                db.rows("SELECT DISTINCT org FROM actions WHERE state = 'pending'").map { try $0.string("org") })
            return held.filter { waiting.contains($0.key) }.values.min { $0.retryAt < $1.retryAt }.map {
                .paused($0)
            }
        }
        if honouringBackoff, let next = head.nextAttemptAt, next > now {
            guard next > latest else { return .notDue(next) }
            try db.run("UPDATE actions SET next_attempt_at = ? WHERE id = ?", [latest, head.id])
            return .notDue(latest)
        }
        try db.run(
            "UPDATE actions SET state = 'inFlight', updated_at = ? WHERE id = ?", [Timestamp.iso8601(now), head.id])
        return .due(head)
    }

    /// What ``claimHead(now:honouringBackoff:longestWait:skipping:)`` found.
    enum Claim: Sendable {
        case due(QueuedAction)
        case notDue(Date)
        case paused(QueuePause)
    }

    /// The drainer's own writes skip the per-commit fsync (`synchronous=NORMAL`; enqueues, retries
    /// and clears keep FULL). Losing one of them cannot lose or double an action: the action was
    /// durable since its enqueue, and if a power cut takes back a "sent" or "inFlight" mark, the
    /// action is simply sent again with its key and the server replays its first answer. A process
    /// crash loses nothing either way (in WAL mode a commit reaches the OS before it returns).
    func bookkeeping<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try database.write { db in
            try db.run("PRAGMA synchronous = NORMAL")
            let outcome = Result { try body(db) }
            // Never silently: left at NORMAL, the enqueues after it would skip their fsync. A failure
            // here fails this call (the sync pass reports it) and the next one sets FULL again.
            try db.run("PRAGMA synchronous = FULL")
            return try outcome.get()
        }
    }

    /// Records a try's outcome.
    func record(_ id: Int, state: ActionState, status: Int?, error: String?, nextAttemptAt: Date?, now: Date) throws {
        try bookkeeping { db in
            try db.transaction {
                try db.run(
                    """
                    UPDATE actions SET state = ?, tries = tries + 1, last_status = ?, last_error = ?, next_attempt_at = ?,
                        updated_at = ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END
                    WHERE id = ?
                    """,
                    [
                        state.rawValue, status, error, nextAttemptAt, now, state.rawValue, now, id,
                    ])
                if state == .sent {
                    try db.run(
                        "INSERT INTO queue_state (key, value) VALUES ('lastSyncAt', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        [Timestamp.iso8601(now)])
                }
                if state == .pending, status != nil {
                    try Self.noteFailing(id, since: now, in: db)
                } else if state != .pending {
                    try Self.forgetFailing(id, in: db)
                }
            }
        }
    }
}
