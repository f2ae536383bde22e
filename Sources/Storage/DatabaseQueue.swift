import Dispatch
import Synchronization

/// A ``Database`` shared between threads: one connection, one caller at a time. SQLite allows a
/// single writer anyway, and one connection keeps the statement cache warm.
///
/// ``groupCommit(_:_:)`` is the write path for concurrent requests: writers that arrive while a
/// commit is under way share the next transaction (each in its own savepoint) and its one fsync.
/// Quick writes go first in each round; bulk ones (an ERP feed) fill the rest of a round up to
/// ``roundBudget``, so a pick never queues behind several feeds.
///
///     let queue = try DatabaseQueue(path: path, migrations: Schema.migrations)
///     let count = try queue.groupCommit { db in try db.run("DELETE FROM t") }
public final class DatabaseQueue: Sendable {
    private let database: Mutex<Database>
    private let group = Mutex(GroupState())
    public let path: String

    /// Opens the database and applies the pending `migrations` (see ``Migration``).
    public init(path: String, migrations: [Migration] = []) throws {
        let database = try Database(path: path)
        try Migration.apply(migrations, to: database)
        self.path = path
        self.database = Mutex(database)
    }

    /// Runs `body` with exclusive use of the connection (no transaction unless `body` opens one).
    public func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try database.withLock { database in try body(database) }
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
    /// if the commit fails, every writer in it gets the error and none of their changes remain.
    ///
    /// Group commit, leader/follower style: the first writer to arrive leads. It runs every pending
    /// writer's body in one transaction and commits once, again and again until its own is done, then
    /// hands leadership to the oldest writer still waiting, so nobody is starved.
    public func groupCommit<T: Sendable>(
        _ priority: WritePriority = .quick, _ body: @escaping (Database) throws -> T
    ) throws -> T {
        let job = GroupJob(body, isBulk: priority == .bulk)
        var leads = group.withLock { state in
            state.pending.append(job)
            if state.leading { return false }
            state.leading = true
            return true
        }
        while true {
            if leads { lead(until: job) }
            job.wait()
            if job.isDone { break }
            leads = true  // promoted by the previous leader
        }
        return try job.result()
    }

    /// Commits rounds of pending writers until `own` is done, then passes leadership on.
    private func lead(until own: GroupJob<some Sendable>) {
        while !own.isDone {
            let waiting = group.withLock { state in
                defer { state.pending.removeAll() }
                return state.pending
            }
            let ordered = waiting.filter { !$0.isBulk } + waiting.filter(\.isBulk)
            var ran: [any GroupWork] = []
            var failedToBegin = false
            database.withLock { database in
                let start = ContinuousClock.now
                do {
                    try database.run("BEGIN IMMEDIATE")
                    for job in ordered {
                        if job.isBulk, ran.contains(where: \.isBulk), ContinuousClock.now - start > Self.roundBudget {
                            break
                        }
                        job.run(in: database, savepoint: "w\(ran.count)")
                        ran.append(job)
                    }
                    try database.run("COMMIT")
                } catch {
                    _ = try? database.run("ROLLBACK")
                    if ran.isEmpty {  // nothing could start: fail them all rather than retry for ever
                        ran = ordered
                        failedToBegin = true
                    }
                    for job in ran { job.failCommit(error) }
                }
            }
            let left = failedToBegin ? [] : ordered.dropFirst(ran.count)
            if !left.isEmpty { group.withLock { state in state.pending.insert(contentsOf: left, at: 0) } }
            for job in ran { job.finish() }
        }
        group.withLock { state in
            if let next = state.pending.first {
                next.promote()
            } else {
                state.leading = false
            }
        }
    }
}

private struct GroupState {
    var pending: [any GroupWork] = []
    var leading = false
}

/// What the leader needs of a waiting writer, whatever its result type.
private protocol GroupWork: AnyObject, Sendable {
    var isBulk: Bool { get }
    func run(in database: Database, savepoint: String)
    func failCommit(_ error: any Error)
    func finish()
    func promote()
}

/// One writer's body and outcome. Its fields are written by the leader while it holds the database
/// lock and read by the owner only after `finish()` signals, hence `@unchecked Sendable`.
private final class GroupJob<T: Sendable>: GroupWork, @unchecked Sendable {
    private let body: (Database) throws -> T
    private var outcome: Result<T, any Error>?
    private let signal = DispatchSemaphore(value: 0)
    private let done = Atomic(false)
    let isBulk: Bool

    init(_ body: @escaping (Database) throws -> T, isBulk: Bool) {
        self.body = body
        self.isBulk = isBulk
    }

    var isDone: Bool { done.load(ordering: .acquiring) }

    func run(in database: Database, savepoint: String) {
        do {
            try database.run("SAVEPOINT \(savepoint)")
            do {
                outcome = .success(try body(database))
                try database.run("RELEASE \(savepoint)")
            } catch {
                outcome = .failure(error)
                try database.run("ROLLBACK TO \(savepoint)")
                try database.run("RELEASE \(savepoint)")
            }
        } catch {
            outcome = .failure(error)
        }
    }

    func failCommit(_ error: any Error) { outcome = .failure(error) }

    func finish() {
        done.store(true, ordering: .releasing)
        signal.signal()
    }

    func promote() { signal.signal() }

    func wait() { signal.wait() }

    func result() throws -> T {
        guard let outcome else { throw DatabaseError.sqlite(code: 1, message: "write was never run", sql: nil) }
        return try outcome.get()
    }
}
