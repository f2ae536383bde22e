import Storage

/// Applies versioned ``Migration``s to a PostgreSQL database, the way ``Migration/apply(_:to:)`` does
/// for SQLite: each once, in order, recorded in `schema_migrations`, and a database that has applied
/// one this binary does not know is refused. Everything runs in one transaction under an advisory
/// lock, so several servers starting at once migrate exactly once (PostgreSQL's DDL is transactional).
public enum PostgresMigrator {
    /// The advisory lock key that serialises migrations ("scanpick" in ASCII).
    static let lockKey = 0x7363_616E_7069_636B

    /// Applies pending migrations; returns the identifiers it applied.
    @discardableResult
    public static func apply(_ migrations: [Migration], to pool: PostgresPool) throws -> [String] {
        try pool.transaction { db in
            try db.run("SELECT pg_advisory_xact_lock(?)", [lockKey])
            let todo = try Migration.pending(migrations, in: db)
            for migration in todo {
                try db.execute(migration.sql)
                try migration.record(in: db)
            }
            return todo.map(\.identifier)
        }
    }
}
