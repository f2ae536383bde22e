import Synchronization

/// A ``Database`` shared between threads: one connection, one caller at a time. SQLite allows a
/// single writer anyway, and one connection keeps the statement cache warm.
///
///     let queue = try DatabaseQueue(path: path, migrations: Schema.migrations)
///     let count = try queue.write { db in try db.transaction { try db.run("DELETE FROM t") } }
public final class DatabaseQueue: Sendable {
    private let database: Mutex<Database>
    public let path: String

    /// Opens the database and applies the pending `migrations` (see ``Migration``).
    public init(path: String, migrations: [Migration] = []) throws {
        let database = try Database(path: path)
        try Migration.apply(migrations, to: database)
        self.path = path
        self.database = Mutex(database)
    }

    /// Runs `body` with exclusive use of the connection.
    public func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try database.withLock { database in try body(database) }
    }
}
