import Foundation
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
            try db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (identifier TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            let applied = Set(
                try db.rows("SELECT identifier FROM schema_migrations", []).map { try $0.string("identifier") })
            let unknown = applied.subtracting(migrations.map(\.identifier))
            guard unknown.isEmpty else { throw DatabaseError.schemaTooNew(unknown: unknown.sorted()) }
            var done: [String] = []
            for migration in migrations where !applied.contains(migration.identifier) {
                try db.execute(migration.sql)
                try db.run(
                    "INSERT INTO schema_migrations (identifier, applied_at) VALUES (?, ?)",
                    [migration.identifier, ISO8601DateFormatter().string(from: Date())])
                done.append(migration.identifier)
            }
            return done
        }
    }
}
