import Foundation
import JSONText
import SQLiteStorage
import Storage
import Timestamps
import Wire

/// The station's durable outbox of taps and scans, in SQLite (WAL, synchronous=FULL). `enqueue`
/// returns only when the action is on disk, and it can commit the caller's own local change in the
/// same transaction (the pick list's row flips and its action is queued together, or neither).
///
///     let queue = try ActionQueue(path: "var/station.sqlite")
///     let id = try queue.enqueue(.pick(org: "acme", pickTaskId: "t1", location: "A1", qty: 1, worker: "ana")) { db in
///         _ = try db.run("UPDATE pick_list_tasks SET qty_picked = qty_picked + 1 WHERE id = ?", ["t1"])
///     }
public final class ActionQueue: Sendable {
    public let database: DatabaseQueue

    /// Opens the queue database, creating or migrating its tables; `migrations` adds the tables of
    /// whoever shares the file (the station's pick-list cache). A quick integrity check runs first:
    /// a damaged queue is refused with ``QueueError/damaged(_:_:)``, which says how to salvage it.
    public init(path: String, extraMigrations: [Migration] = []) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.makePrivate(path)
        try Self.checkIntegrity(path)
        database = try DatabaseQueue(path: path, migrations: QueueSchema.migrations + extraMigrations)
    }

    /// The queue's files hold every key and payload: they are the station user's alone. The database
    /// is created 0600 (SQLite gives its -wal and -shm files the database's mode), and files an
    /// older scanpick left readable by others are tightened. A file that exists is never opened
    /// here: closing a descriptor of a queue this process already has open would drop SQLite's
    /// locks on it (see `HeldFile`).
    private static func makePrivate(_ path: String) throws(QueueError) {
        if access(path, F_OK) != 0 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 || errno == EEXIST else {
                throw .storage("cannot create \(path): \(String(cString: strerror(errno)))")
            }
            if descriptor >= 0 { close(descriptor) }
        } else if access(path, R_OK | W_OK) != 0 {
            throw .storage("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        for file in [path, path + "-wal", path + "-shm", path + ".drain-lock"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            guard chmod(file, info.st_mode & 0o700) == 0 else {
                throw .storage("\(file) is readable by other users and cannot be made private (chmod 600 \(file))")
            }
        }
    }

    /// `PRAGMA quick_check` on its own read-only connection, before anything writes to the file: a
    /// damaged queue (and its -wal, which may hold the last actions) is left exactly as it was found,
    /// for salvage.
    private static func checkIntegrity(_ path: String) throws(QueueError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let findings: [String]
        do {
            let db = try Database(readingOnly: path)
            findings = try db.rows("PRAGMA quick_check(5)").compactMap { try $0.optionalString("quick_check") }
        } catch {
            guard let error = error as? SQLiteError, error.isDamage, case .sqlite(_, let message, _) = error else {
                throw .storage(String(describing: error))  // not damage (e.g. permissions): said as it is
            }
            throw .damaged(path, message)  // SQLITE_CORRUPT, SQLITE_NOTADB
        }
        guard findings == ["ok"] else { throw .damaged(path, findings.joined(separator: "; ")) }
    }

    /// Queues `action` durably, running `alongside` (the caller's local change) in the same
    /// transaction; returns the action's id.
    @discardableResult
    public func enqueue(_ action: NewAction, alongside: ((Database) throws -> Void)? = nil) throws -> Int {
        try transaction { db in
            try alongside?(db)
            return try Self.insert(action, in: db)
        }
    }

    /// Runs `body` in one immediate write transaction, durable when this returns: the caller reads,
    /// checks and changes its rows and queues its action with ``insert(_:in:)``, all or nothing, so
    /// no other writer (another thread, another `scanpick` process) can slip in between.
    ///
    ///     let id = try queue.transaction { db in
    ///         guard try db.run("UPDATE t SET n = n + 1 WHERE id = ? AND n < 5", [row]) == 1 else { throw Full() }
    ///         return try ActionQueue.insert(action, in: db)
    ///     }
    public func transaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try database.write { db in try db.transaction { try body(db) } }
    }

    /// Inserts `action` as pending inside the caller's transaction; returns its id. Its payload must
    /// be a JSON object carrying its own key (``QueueError/badPayload(_:)`` otherwise): a body that
    /// could never be sent as this action is refused now, not found dead later.
    public static func insert(_ action: NewAction, in db: Database) throws -> Int {
        guard let body = try? JSONSerialization.jsonObject(with: Data(action.payload)) as? [String: Any],
            body["idempotencyKey"] as? String == action.idempotencyKey
        else { throw QueueError.badPayload(action.label) }
        let now = Timestamp.iso8601()
        try db.run(
            """
            INSERT INTO actions (org, kind, pick_task_id, label, payload, idempotency_key, state, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)
            """,
            [
                action.org, action.kind.rawValue, action.pickTaskId, action.label, action.payload,
                action.idempotencyKey, now, now,
            ])
        return try db.row("SELECT last_insert_rowid() AS id")?.int("id") ?? 0
    }

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

    /// Throws ``SQLiteError/fileGone(path:reason:)`` when the queue's file was deleted or replaced
    /// while this process has it open: every write is then refused, since its commit would be lost.
    public func checkFileInPlace() throws {
        try database.write { db in try db.checkFileInPlace() }
    }

    /// Copies everything the open queue holds (whatever became of its file's name) into a new file
    /// beside its path, `<database>.rescued-<time>` (its folder made again if it was removed too);
    /// returns that file's path. What a deleted queue held stays reachable for `scanpick queue
    /// salvage --database` or to be put back in its place.
    public func rescue(now: Date = Date()) throws -> String {
        let folder = (database.path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stamp = Timestamp.iso8601(now).replacingOccurrences(of: ":", with: "")
        let copy = database.path + ".rescued-" + stamp
        try database.write { db in try db.backup(to: copy) }
        return copy
    }

    /// SQLite's `data_version`: it changes when another connection (another process) commits.
    public func dataVersion() throws -> Int {
        try database.read { db in try db.row("PRAGMA data_version")?.int("data_version") ?? 0 }
    }

    // MARK: Support: retry and clear dead letters

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

    private static func log(
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

    // MARK: The drainer's bookkeeping

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

    // MARK: What the running station noticed, for other processes

    /// Keeps what the running station (process `pid`) noticed — a failed sync pass, a missing camera,
    /// a config that does not load — where `scanpick status` in another process can show it; an
    /// empty list removes it.
    public func recordStationAttention(_ items: [Attention], pid: Int32) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let value = String(decoding: try encoder.encode(StationAttention(pid: pid, items: items)), as: UTF8.self)
        try database.write { db in
            if items.isEmpty {
                _ = try db.run("DELETE FROM queue_state WHERE key = 'stationAttention'")
            } else {
                _ = try db.run(
                    "INSERT INTO queue_state (key, value) VALUES ('stationAttention', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [value])
            }
        }
    }

    /// What the running station last noticed (``recordStationAttention(_:pid:)``), while the
    /// process that recorded it still runs; empty otherwise.
    public func stationAttention() throws -> [Attention] {
        guard
            let text = try database.read({ db in
                try db.row("SELECT value FROM queue_state WHERE key = 'stationAttention'")?.string("value")
            })
        else { return [] }
        let stored: StationAttention
        do {
            stored = try JSONDecoder().decode(StationAttention.self, from: Data(text.utf8))
        } catch {
            throw QueueError.storage("the station's stored attention cannot be read (\(error))")
        }
        guard stored.pid > 0, kill(stored.pid, 0) == 0 || errno == EPERM else { return [] }
        return stored.items
    }

    private struct StationAttention: Codable {
        var pid: Int32
        var items: [Attention]
    }

    // MARK: Pause: the server refused the station itself

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
    private static func pauseKey(_ org: String?) -> String {
        org.map { "pause:" + $0 } ?? "pause"
    }

    private static func pauses(_ db: Database) throws -> [QueuePause] {
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

    private static func store(_ pause: QueuePause, in db: Database) throws {
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

    /// The drainer's own writes skip the per-commit fsync (`synchronous=NORMAL`; enqueues, retries
    /// and clears keep FULL). Losing one of them cannot lose or double an action: the action was
    /// durable since its enqueue, and if a power cut takes back a "sent" or "inFlight" mark, the
    /// action is simply sent again with its key and the server replays its first answer. A process
    /// crash loses nothing either way (in WAL mode a commit reaches the OS before it returns).
    private func bookkeeping<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
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

    // MARK: The head the server keeps failing

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
    private static func noteFailing(_ id: Int, since now: Date, in db: Database) throws {
        if let stored = try failing(in: db), stored.id == id { return }
        let value = String(
            decoding: try JSONEncoder().encode(Failing(id: id, since: Timestamp.iso8601(now))), as: UTF8.self)
        try db.run(
            "INSERT INTO queue_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [failingKey, value])
    }

    private static func forgetFailing(_ id: Int, in db: Database) throws {
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

    /// Deletes sent actions older than `retention` (they are kept a while for the diagnostics history).
    @discardableResult
    public func pruneSent(olderThan retention: TimeInterval, now: Date = Date()) throws -> Int {
        try database.write { db in
            try db.run(
                "DELETE FROM actions WHERE state = 'sent' AND sent_at < ?", [now.addingTimeInterval(-retention)])
        }
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

/// One entry of the station log: what support did to the queue, when, and by whom.
public struct StationLogEntry: Sendable, Equatable {
    public var at: String
    public var event: String
    public var actionId: Int?
    public var actor: String?
    /// The action as it was (JSON), so cleared work can be reconstructed.
    public var detail: String
}

/// A queue operation that cannot be done, with why.
public enum QueueError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchAction(Int)
    case notDead(Int, ActionState)
    /// Only a pending action can be parked (one in flight is being sent now; a dead one already is).
    case notPending(Int, ActionState)
    /// Parking this action would send it after a newer one it does not commute with (why).
    case wouldReorder(Int, String)
    case storage(String)
    /// The queue database at this path failed its integrity check, with what SQLite found.
    case damaged(String, String)
    /// Line N of an import file is not an action this queue can take.
    case badImport(line: Int, String)
    /// An action whose payload is not a JSON object carrying its key (its label).
    case badPayload(String)
    /// Importing now would send old work after new (what, and what to do first).
    case importOutOfOrder(String)
    /// The drain lock file at this path cannot be opened or locked, for this reason (not because
    /// another drainer holds it).
    case drainLock(String, String)

    public var description: String {
        switch self {
        case .damaged(let path, let findings):
            """
            the queue database \(path) is damaged (\(findings.prefix(300))); it was left as it is. Run \
            `scanpick queue salvage --to FILE` to save every readable unsent action with its key (it lists any \
            row it cannot read: compare those with the server), move \(path) (and its -wal and -shm files) \
            aside, then `scanpick queue import FILE` into a fresh queue
            """
        case .badImport(let line, let problem): "line \(line) of the import file: \(problem); nothing was imported"
        case .importOutOfOrder(let problem): "\(problem); nothing was imported"
        case .badPayload(let label):
            "\(label) was not queued: its body is not a JSON object carrying its idempotency key (a bug: please report it)"
        case .drainLock(let path, let reason):
            "the queue's drain lock \(path) cannot be taken (\(reason)), so nothing is sent: make it a file this station's user can write (`chown USER \(path)` and `chmod 600 \(path)`, or remove it if it is not a file); the queue is kept"
        case .noSuchAction(let id): "there is no action #\(id) in the queue (see `scanpick queue`)"
        case .notDead(let id, let state):
            state == .pending
                ? "action #\(id) is pending, not dead: only dead letters can be retried or cleared (one a pause holds back can first be parked: scanpick queue park \(id))"
                : "action #\(id) is \(state.rawValue), not dead: only dead letters can be retried or cleared"
        case .notPending(let id, .inFlight):
            "action #\(id) is being sent right now: park it once this try has ended (see scanpick queue)"
        case .notPending(let id, let state):
            "action #\(id) is \(state.rawValue), not pending: only an action waiting to be sent can be parked"
        case .wouldReorder(let id, let why):
            "action #\(id) was not moved: \(why). Let them go in order (the server's log says why it fails #\(id))"
        case .storage(let message): "the queue database failed: \(message)"
        }
    }
}
