import Dispatch
import Synchronization

/// A ``Database`` shared between threads: one connection, one caller at a time. SQLite allows a
/// single writer anyway, and one connection keeps the statement cache warm.
///
/// ``groupCommit(_:)`` is the write path for concurrent requests: writers that arrive while a commit
/// is under way share the next transaction (each in its own savepoint) and its one fsync.
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

    /// Runs `body` in a write transaction and returns once that transaction is committed (durable).
    /// If `body` throws, only its own changes are rolled back (a savepoint) and the error is rethrown;
    /// if the commit fails, every writer in it gets the error and none of their changes remain.
    ///
    /// Group commit, leader/follower style: the first writer to arrive leads. It runs every pending
    /// writer's body in one transaction and commits once, again and again until its own is done, then
    /// hands leadership to the oldest writer still waiting, so nobody is starved.
    public func groupCommit<T: Sendable>(_ body: @escaping (Database) throws -> T) throws -> T {
        let job = GroupJob(body)
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
            let batch = group.withLock { state in
                defer { state.pending.removeAll() }
                return state.pending
            }
            database.withLock { database in
                do {
                    try database.run("BEGIN IMMEDIATE")
                    for (index, job) in batch.enumerated() { job.run(in: database, savepoint: "w\(index)") }
                    try database.run("COMMIT")
                } catch {
                    _ = try? database.run("ROLLBACK")
                    for job in batch { job.failCommit(error) }
                }
            }
            for job in batch { job.finish() }
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

    init(_ body: @escaping (Database) throws -> T) { self.body = body }

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
