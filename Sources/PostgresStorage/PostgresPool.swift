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
    /// lost a race (serialization failure, deadlock) is run again, up to `attempts` times.
    public func transaction<T>(attempts: Int = 5, _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try withConnection { connection in
                    try connection.execute("BEGIN")
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
            }
        }
    }
}
