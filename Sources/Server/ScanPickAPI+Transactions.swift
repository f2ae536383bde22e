import Foundation
import HTTPServing
import Logging
import Storage

/// The store's transactions as requests use them (timed, for `slow_transaction`), and whether the
/// storage takes writes (`/health/ready`).
extension ScanPickAPI {
    /// How long the database's commit in progress has run, in nanoseconds (0 when none runs): for a
    /// watchdog, a commit that never ends is a wedged database.
    public var commitRunningFor: UInt64 { store.commitRunningFor }

    /// Remembers a failure for want of storage, for `/health/ready`.
    func noteStorage(_ failure: PickingError) {
        switch failure {
        case .storageFull, .storageFailed: storageTrouble.withLock { $0 = failure }
        default: break
        }
    }

    /// A write went through: the storage takes writes again.
    func storageWorks() {
        storageTrouble.withLock { $0 = nil }
    }

    /// Runs `body` in one immediate transaction for `org`.
    func transaction<T: Sendable>(
        _ org: String, _ path: String, _ priority: WritePriority = .quick,
        _ body: @escaping (PickingStore) throws -> T
    ) throws -> T {
        let dialect = store.dialect
        return try write(path, priority) { db in
            try body(PickingStore(db: db, dialect: dialect, org: org, now: Date()))
        }
    }

    /// Runs `body` in a read transaction for `org`, beside the writes.
    func read<T: Sendable>(_ org: String, _ body: (PickingStore) throws -> T) throws -> T {
        let dialect = store.dialect
        return try store.read { db in try body(PickingStore(db: db, dialect: dialect, org: org, now: Date())) }
    }

    /// How long one request's work may hold the write transaction (SQLite's only writer) before the
    /// server logs it as a `slow_transaction`: the bounds on every request are meant to keep each
    /// one well under it.
    static let writerHoldLimit = Duration.milliseconds(100)

    /// Runs `body` in the store's write transaction, timing the part that is this request's own.
    func write<T: Sendable>(
        _ path: String, _ priority: WritePriority = .quick,
        _ body: @escaping (any SQLConnection) throws -> T
    ) throws -> T {
        let result = try store.write(priority, timed(path, body))
        storageWorks()
        return result
    }

    /// `body`, logging a `slow_transaction` when it holds the writer longer than ``writerHoldLimit``.
    func timed<T>(_ path: String, _ body: @escaping (any SQLConnection) throws -> T) -> (any SQLConnection)
        throws -> T
    {
        { db in
            let start = ContinuousClock.now
            defer {
                let held = ContinuousClock.now - start
                if held > Self.writerHoldLimit {
                    self.logger.warning(
                        "slow_transaction", ["path": .string(path), "ms": .milliseconds(Self.milliseconds(held))])
                }
            }
            return try body(db)
        }
    }
}
