import Dispatch
import Metrics
import Storage
import Synchronization

/// A ``Database`` shared between threads: one connection, one caller at a time. SQLite allows a
/// single writer anyway, and one connection keeps the statement cache warm.
///
/// ``groupCommit(_:_:)`` is the write path for concurrent requests: writers that arrive while a
/// commit is under way share the next transaction (each in its own savepoint) and its one fsync.
/// Quick writes go first in each round; bulk ones (an ERP feed) fill the rest of a round up to
/// ``roundBudget``, so a pick never queues behind several feeds. A caller that must not block
/// (an HTTP polling thread) passes a completion instead of waiting.
///
///     let queue = try DatabaseQueue(path: path, migrations: Schema.migrations)
///     let count = try queue.groupCommit { db in try db.run("DELETE FROM t") }
public final class DatabaseQueue: Sendable {
    private let connection: LockedDatabase
    /// Started by the first group commit (a station's queue never needs one).
    private let committer = Mutex<GroupCommitter?>(nil)
    public let path: String

    /// Opens the database and applies the pending `migrations` (see ``Migration``).
    public init(path: String, migrations: [Migration] = []) throws {
        let database = try Database(path: path)
        try Migration.apply(migrations, to: database)
        self.path = path
        self.connection = LockedDatabase(database)
    }

    /// Runs `body` with exclusive use of the connection (no transaction unless `body` opens one).
    public func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try connection.database.withLock { database in try body(database) }
    }

    /// Runs `body` in a read transaction: every statement in it sees the same committed state, and
    /// any statement that would change the database fails (`PRAGMA query_only`). In WAL mode it runs
    /// beside another connection's writer instead of waiting for it.
    ///
    ///     let count = try queue.read { db in try db.row("SELECT COUNT(*) AS n FROM t")?.int("n") }
    public func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try write { database in try Self.readOnly(database, body) }
    }

    private static func readOnly<T>(_ database: Database, _ body: (Database) throws -> T) throws -> T {
        try database.run("PRAGMA query_only = 1")
        // Setting a connection flag does not fail once the one above has worked; if it ever did,
        // the next write would fail loudly (a read-only database), never silently.
        defer { _ = try? database.run("PRAGMA query_only = 0") }
        return try database.transaction(.deferred) { try body(database) }
    }

    /// How a write is scheduled among the others waiting for the same commit.
    public enum WritePriority: Sendable {
        /// Small and latency-sensitive (a pick, a scan): runs in the next round.
        case quick
        /// Large (an order feed, a new batch): runs after the quick ones of its round, and waits for
        /// a later round once this one has run for ``DatabaseQueue/roundBudget``.
        case bulk
    }

    /// How long one round runs bulk writes before committing what it has and starting another.
    public static let roundBudget = Duration.milliseconds(50)

    /// Runs `body` in a write transaction and returns once that transaction is committed (durable).
    /// If `body` throws, only its own changes are rolled back (a savepoint) and the error is rethrown;
    /// if the commit fails, every writer in it gets the error and none of their changes remain. See
    /// ``GroupCommitter`` for how writes share commits.
    public func groupCommit<T: Sendable>(
        _ priority: WritePriority = .quick, _ body: @escaping (Database) throws -> T
    ) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        groupCommit(priority, body) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0.take() }!.get()
    }

    /// Queues `body` for the next group commit and returns at once; `completion` gets its result once
    /// the transaction is committed (durable) or has failed, on the committing thread (keep it short).
    public func groupCommit<T: Sendable>(
        _ priority: WritePriority = .quick, _ body: @escaping (Database) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let committer = committer.withLock { committer in
            if let committer { return committer }
            let started = GroupCommitter(connection)
            committer = started
            return started
        }
        committer.submit(GroupJob(body, isBulk: priority == .bulk, completion: completion))
    }

    /// How long the group commit in progress has run, in nanoseconds (0 when none runs): for a
    /// watchdog, a commit that never ends is a wedged database.
    public var commitRunningFor: UInt64 { committer.withLock { $0 }?.roundRunningFor ?? 0 }

    /// How many writes each group commit held so far (one count per commit round).
    public var commitRoundSizes: HistogramCounts {
        committer.withLock { $0 }?.roundSizes.snapshot ?? HistogramCounts(bounds: GroupCommitter.roundSizeBounds)
    }

    deinit { committer.withLock { $0?.stop() } }
}
