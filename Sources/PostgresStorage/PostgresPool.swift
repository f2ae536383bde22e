import Dispatch
import Foundation
import Synchronization

/// A fixed-size pool of connections to one PostgreSQL database, shared by the threads serving
/// requests. Connections open on demand; a caller waits when all `size` are busy. A connection that
/// broke (the database restarted) is dropped rather than returned, so the next caller gets a fresh
/// one: the pool recovers by itself once the database is back.
///
///     let pool = try PostgresPool("postgres://scanpick@db/scanpick", size: 8)
///     let count = try pool.transaction { db in try db.run("UPDATE …", [id]) }
public final class PostgresPool: Sendable {
    public let connectionString: String
    public let size: Int
    private let idle = Mutex<[PostgresConnection]>([])
    private let slots: DispatchSemaphore

    /// Checks that the database answers, then keeps that connection for later.
    public init(_ connectionString: String, size: Int) throws(PostgresError) {
        self.connectionString = connectionString
        self.size = max(1, size)
        slots = DispatchSemaphore(value: self.size)
        let first = try PostgresConnection(connectionString)
        idle.withLock { $0.append(first) }
    }

    /// Runs `body` with a connection of its own.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        slots.wait()
        defer { slots.signal() }
        let connection = try idle.withLock { $0.popLast() } ?? PostgresConnection(connectionString)
        defer { if connection.isHealthy { idle.withLock { $0.append(connection) } } }
        return try body(connection)
    }

    /// Runs `body` in one transaction and commits it; any error rolls it back. `BEGIN` and the
    /// writes `body` defers travel with its first query and with `COMMIT`. The transaction is run
    /// again, up to `attempts` times, when it lost a race (serialization failure, deadlock) or when
    /// its connection broke before `COMMIT` was sent (an idle connection gone stale while the
    /// database restarted): nothing of it was committed.
    public func transaction<T>(attempts: Int = 5, _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try withConnection { connection in
                    let value: T
                    do {
                        try connection.runLater("BEGIN")
                        value = try body(connection)
                    } catch let error as PostgresError where error.isConnectionFailure {
                        throw BrokenBeforeCommit(underlying: error)
                    } catch {
                        Self.rollBack(connection)
                        throw error
                    }
                    do {
                        try connection.run("COMMIT")
                    } catch {
                        Self.rollBack(connection)
                        throw error
                    }
                    return value
                }
            } catch let error as PostgresError where error.isRetryableConflict && attempt < attempts {
                attempt += 1
            } catch let broken as BrokenBeforeCommit {
                guard attempt < attempts else { throw broken.underlying }
                attempt += 1
                idle.withLock { $0.removeAll() }  // made before the same break, most likely: all stale
            }
        }
    }

    private static func rollBack(_ connection: PostgresConnection) {
        connection.discardDeferred()
        if connection.isHealthy { try? connection.execute("ROLLBACK") }
    }

    /// A connection that broke before the transaction's `COMMIT` was sent.
    private struct BrokenBeforeCommit: Error {
        var underlying: PostgresError
    }
}
