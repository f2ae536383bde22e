internal import CThreadName
import Dispatch
import Foundation
import Metrics
import Synchronization
import Waking

/// The connection of a ``DatabaseQueue``, shared with its ``GroupCommitter``: one caller at a time.
final class LockedDatabase: Sendable {
    let database: Mutex<Database>
    init(_ database: sending Database) { self.database = Mutex(database) }
}

/// The thread that runs a ``DatabaseQueue``'s group commits. Each round it takes every waiting
/// write — quick ones first, then bulk ones until the round has run for
/// ``DatabaseQueue/roundBudget`` — runs each in a savepoint of one transaction, commits once (one
/// fsync for all of them), and hands every writer its outcome. One thread does this, so under load
/// it goes from round to round without sleeping and writers wait without waking one another.
final class GroupCommitter: Sendable {
    private struct State {
        var pending: [any GroupWork] = []
        var stopping = false
    }

    private let connection: LockedDatabase
    private let state = Mutex(State())
    /// Rung by each write and by the stop: the committing thread sleeps on it when it has nothing to do.
    private let wake = WakeUp()
    private let ended = DispatchSemaphore(value: 0)
    /// The committing thread, so that a stop asked from inside a completion does not wait for itself.
    private let thread = Mutex<pthread_t?>(nil)
    /// When the round in progress began (uptime ns; 0 between rounds).
    private let roundStartedAt = Atomic<UInt64>(0)
    /// How many writes each round committed together (one observation per round, not per write).
    let roundSizes = Histogram(bounds: GroupCommitter.roundSizeBounds)
    static let roundSizeBounds: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256]

    init(_ connection: LockedDatabase) {
        self.connection = connection
        let thread = Thread { [self] in
            self.thread.withLock { $0 = pthread_self() }
            _ = scanpick_name_this_thread("group-commit")  // for top -H and perf
            commitUntilStopped()
            ended.signal()
        }
        thread.name = "group-commit"
        thread.start()
    }

    /// How long the round in progress has run, in nanoseconds (0 between rounds).
    var roundRunningFor: UInt64 {
        let start = roundStartedAt.load(ordering: .relaxed)
        return start == 0 ? 0 : DispatchTime.now().uptimeNanoseconds &- start
    }

    func submit(_ job: any GroupWork) {
        state.withLock { $0.pending.append(job) }
        wake.ring()  // only a sleeping thread is signalled; a busy one finds the write next round
    }

    /// Lets every submitted write finish, then ends the thread (waiting for it unless called on it).
    func stop() {
        state.withLock { $0.stopping = true }
        wake.ring()
        let onItself = thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onItself { ended.wait() }
    }

    private func commitUntilStopped() {
        var idleSince: ContinuousClock.Instant?  // since the last round, with nothing to commit
        var writesFollowClosely = false  // the last write came within `idleSpin` of the round before
        while true {
            let (waiting, stopping) = state.withLock { state in
                defer { state.pending.removeAll() }
                return (state.pending, state.stopping)
            }
            if waiting.isEmpty {
                if stopping { return }
                if idleSince == nil { idleSince = .now }
                // A write submitted since the look above has rung: the wait then returns at once.
                if !(writesFollowClosely && workArrives(within: Self.idleSpin)) { wake.wait() }
                continue
            }
            if let since = idleSince {
                writesFollowClosely = ContinuousClock.now - since <= Self.idleSpin
                idleSince = nil
            }
            roundStartedAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            let left = commitRound(waiting.filter { !$0.isBulk } + waiting.filter(\.isBulk))
            roundStartedAt.store(0, ordering: .relaxed)
            if !left.isEmpty { state.withLock { $0.pending.insert(contentsOf: left, at: 0) } }
        }
    }

    /// How long the committing thread looks for the next write before it sleeps, when the last
    /// write came that soon after the round before it (a client sending one write after another):
    /// the next one then starts at once instead of waiting for a sleeping thread to be woken (tens
    /// of microseconds on a virtual machine, a third of a scan's own work). Writes further apart
    /// cost no looking; the looking yields the core to any other thread that wants it.
    static let idleSpin = Duration.microseconds(300)

    /// Whether a write (or a stop) arrives within `limit`, looking without sleeping.
    private func workArrives(within limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        repeat {
            if state.withLock({ !$0.pending.isEmpty || $0.stopping }) { return true }
            sched_yield()
        } while ContinuousClock.now < deadline
        return false
    }

    /// Runs one transaction; returns the writes it left for the next round.
    private func commitRound(_ ordered: [any GroupWork]) -> ArraySlice<any GroupWork> {
        var ran: [any GroupWork] = []
        var failedToBegin = false
        connection.database.withLock { database in
            let start = ContinuousClock.now
            do {
                try database.run("BEGIN IMMEDIATE")
                if ordered.count == 1, let only = ordered.first {
                    // Alone in its round: its own transaction, no savepoint to set and release.
                    ran.append(only)
                    if only.run(alone: database) {
                        try database.checkFileInPlace()  // never confirm a write to a deleted file
                        try database.run("COMMIT")
                    } else {
                        try database.run("ROLLBACK")
                    }
                } else {
                    for job in ordered {
                        if job.isBulk, ran.contains(where: \.isBulk),
                            ContinuousClock.now - start > DatabaseQueue.roundBudget
                        {
                            break
                        }
                        ran.append(job)
                        try job.runInSavepoint(database)
                        // A full disk or an I/O error inside one write can make SQLite roll back the
                        // whole transaction; the writes before it must not then be answered as committed.
                        guard database.isInTransaction else { throw SQLiteError.rolledBack }
                    }
                    try database.checkFileInPlace()
                    try database.run("COMMIT")
                }
            } catch {
                _ = try? database.run("ROLLBACK")  // fails only when there is nothing to roll back
                if ran.isEmpty {  // nothing could start: fail them all rather than retry for ever
                    ran = ordered
                    failedToBegin = true
                }
                for job in ran { job.failCommit(error) }
            }
        }
        roundSizes.observe(Double(ran.count))
        for job in ran { job.finish() }
        return failedToBegin ? [] : ordered.dropFirst(ran.count)
    }
}

/// What the committer needs of a waiting write, whatever its result type.
protocol GroupWork: AnyObject, Sendable {
    var isBulk: Bool { get }
    /// Runs the body in a savepoint; a failure of the body is its outcome, but a failure of the
    /// savepoint itself is thrown, so that the whole transaction rolls back rather than commit half
    /// of this write.
    func runInSavepoint(_ database: Database) throws
    /// Runs the body as the only work of the transaction; false if it threw (roll back).
    func run(alone database: Database) -> Bool
    func failCommit(_ error: any Error)
    /// Hands the outcome to the writer.
    func finish()
}

/// One write's body, outcome and completion. Its outcome is written by the committer while it holds
/// the database lock and read by the committer again in `finish()`, hence `@unchecked Sendable`.
final class GroupJob<T: Sendable>: GroupWork, @unchecked Sendable {
    private let body: (Database) throws -> T
    private let completion: @Sendable (Result<T, any Error>) -> Void
    private var outcome: Result<T, any Error>?
    let isBulk: Bool

    init(
        _ body: @escaping (Database) throws -> T, isBulk: Bool,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        self.body = body
        self.isBulk = isBulk
        self.completion = completion
    }

    /// The savepoints of one round follow one another (each is released before the next is set),
    /// so one name serves them all, and their three statements stay prepared.
    func runInSavepoint(_ database: Database) throws {
        try database.run("SAVEPOINT write")
        let result: Result<T, any Error>
        do {
            result = .success(try body(database))
        } catch {
            result = .failure(error)
        }
        outcome = result
        if case .failure = result { try database.run("ROLLBACK TO write") }
        try database.run("RELEASE write")
    }

    func run(alone database: Database) -> Bool {
        do {
            outcome = .success(try body(database))
            return true
        } catch {
            outcome = .failure(error)
            return false
        }
    }

    func failCommit(_ error: any Error) { outcome = .failure(error) }

    func finish() {
        completion(outcome ?? .failure(SQLiteError.sqlite(code: 1, message: "write was never run", sql: nil)))
    }
}
