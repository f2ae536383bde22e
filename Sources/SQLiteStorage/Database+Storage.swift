import Storage

extension Database: SQLConnection {
    /// Runs the statement at once (SQLite has no round trip to save).
    public func runLater(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(SQLiteError) {
        try run(sql, arguments)
    }
}

extension Migration {
    /// Applies every migration of `migrations` not yet applied to `database`, in order, each in a
    /// transaction of its own; returns the identifiers it applied.
    @discardableResult
    public static func apply(_ migrations: [Migration], to database: Database) throws -> [String] {
        guard !migrations.isEmpty else { return [] }
        let todo = try pending(migrations, in: database)
        for migration in todo {
            try database.transaction {
                try database.execute(migration.sql)
                try migration.record(in: database)
            }
        }
        return todo.map(\.identifier)
    }
}
