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

    /// Runs `body` in one transaction and commits it; any error rolls it back. A transaction that
    /// lost a race (serialization failure, deadlock) is run again, up to `attempts` times, and so is
    /// one whose idle connection turned out broken at `BEGIN` (the database restarted since), on a
    /// fresh connection: nothing had run yet.
    public func transaction<T>(attempts: Int = 5, _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try withConnection { connection in
                    do {
                        try connection.execute("BEGIN")
                    } catch let error as PostgresError where error.isConnectionFailure {
                        throw StaleConnection(underlying: error)
                    }
                    do {
                        let value = try body(connection)
                        try connection.execute("COMMIT")
                        return value
                    } catch {
                        if connection.isHealthy { try? connection.execute("ROLLBACK") }
                        throw error
                    }
                }
            } catch let error as PostgresError where error.isRetryableConflict && attempt < attempts {
                attempt += 1
            } catch let stale as StaleConnection {
                guard attempt < attempts else { throw stale.underlying }
                idle.withLock { $0.removeAll() }  // made before the same break, most likely: all stale
                attempt += 1
            }
        }
    }

    /// An idle connection that broke while it waited in the pool.
    private struct StaleConnection: Error {
        var underlying: PostgresError
    }
}
