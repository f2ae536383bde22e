import Foundation

/// One named step of a database schema, applied once, in the order given, in one transaction with
/// its record in `schema_migrations`. Several components can share one file (the station's queue and
/// its pick-list cache), each with its own migrations, as GRDB's migrator does. A database that has
/// applied a migration this binary does not know is refused: an old binary never writes to a schema
/// it does not understand. Each engine applies them its own way (`Migration.apply(_:to:)` for a
/// SQLite `Database`, `PostgresMigrator` for PostgreSQL) with the shared ``pending(_:in:)`` and
/// ``record(in:)``.
///
///     Migration("queue-1", sql: "CREATE TABLE actions (...)")
public struct Migration: Sendable {
    public var identifier: String
    public var sql: String

    public init(_ identifier: String, sql: String) {
        self.identifier = identifier
        self.sql = sql
    }

    /// The migrations of `migrations` that `db` has not applied yet, in order (`schema_migrations` is
    /// created when missing). Throws ``StorageError/schemaTooNew(unknown:)`` when `db` has applied
    /// one not in `migrations`. Shared by every engine's migrator.
    public static func pending(_ migrations: [Migration], in db: any SQLConnection) throws -> [Migration] {
        try db.run(
            "CREATE TABLE IF NOT EXISTS schema_migrations (identifier TEXT PRIMARY KEY, applied_at TEXT NOT NULL)", [])
        let applied = Set(try Self.applied(in: db))
        let unknown = applied.subtracting(migrations.map(\.identifier))
        guard unknown.isEmpty else { throw StorageError.schemaTooNew(unknown: unknown.sorted()) }
        return migrations.filter { !applied.contains($0.identifier) }
    }

    /// What `db` has applied of `migrations` (with when), what it has not, and what it has applied
    /// that `migrations` lacks (a newer binary's), reading only: `hasTable` says whether
    /// `schema_migrations` exists (each engine asks its own catalogue). For `scanpick migrate --status`.
    public static func status(_ migrations: [Migration], in db: any SQLConnection, hasTable: Bool) throws
        -> (applied: [(identifier: String, appliedAt: String)], pending: [String], unknown: [String])
    {
        guard hasTable else { return ([], migrations.map(\.identifier), []) }
        let rows = try db.rows(
            "SELECT identifier, applied_at FROM schema_migrations ORDER BY applied_at, identifier", [])
        let applied = try rows.map { (identifier: try $0.string("identifier"), appliedAt: try $0.string("applied_at")) }
        let known = Set(migrations.map(\.identifier))
        let done = Set(applied.map(\.identifier))
        return (
            applied.filter { known.contains($0.identifier) },
            migrations.map(\.identifier).filter { !done.contains($0) },
            applied.map(\.identifier).filter { !known.contains($0) }
        )
    }

    /// The identifiers of the migrations `db` has applied (`schema_migrations` must exist).
    public static func applied(in db: any SQLConnection) throws -> [String] {
        try db.rows("SELECT identifier FROM schema_migrations", []).map { try $0.string("identifier") }
    }

    /// A statement for the migration that brings a schema's times to ``Timestamp`` text: it rewrites
    /// the times of migrations recorded before those had milliseconds (`…:00Z` as `…:00.000Z`).
    public static let normaliseAppliedTimes = """
        UPDATE schema_migrations SET applied_at = substr(applied_at, 1, 19) || '.000Z' WHERE length(applied_at) = 20;
        """

    /// Records this migration as applied, in the caller's transaction.
    public func record(in db: any SQLConnection) throws {
        try db.run(
            "INSERT INTO schema_migrations (identifier, applied_at) VALUES (?, ?)",
            [identifier, Date()])
    }
}
