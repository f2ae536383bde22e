import Storage

extension Database: SQLConnection {
    /// Runs the statement at once (SQLite has no round trip to save).
    public func runLater(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(SQLiteError) {
        try run(sql, arguments)
    }
}

extension Migration {
    /// Applies every migration of `migrations` not yet applied to `database`, in order, each in a
    /// transaction of its own; returns the identifiers it applied. Each is looked for again once its
    /// transaction holds the write lock, so two processes opening one file at once apply it once.
    @discardableResult
    public static func apply(_ migrations: [Migration], to database: Database) throws -> [String] {
        guard !migrations.isEmpty else { return [] }
        var done: [String] = []
        for migration in try pending(migrations, in: database) {
            try database.transaction {
                guard !(try applied(in: database)).contains(migration.identifier) else { return }
                try database.execute(migration.sql)
                try migration.record(in: database)
                done.append(migration.identifier)
            }
        }
        return done
    }
}
