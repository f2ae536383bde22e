/// One step of a database schema: version N's SQL, applied once, in order, in one transaction with
/// the version bump (`PRAGMA user_version`). A database whose version is newer than the newest
/// migration known is refused, so an old binary never writes to a schema it does not understand.
public struct Migration: Sendable {
    public var version: Int
    public var sql: String

    public init(version: Int, sql: String) {
        self.version = version
        self.sql = sql
    }

    /// Applies every migration newer than the database's version.
    public static func apply(_ migrations: [Migration], to database: Database) throws {
        guard let known = migrations.map(\.version).max() else { return }
        let current = try database.userVersion
        guard current <= known else { throw DatabaseError.schemaTooNew(found: current, known: known) }
        for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > current {
            try database.transaction {
                try database.execute(migration.sql)
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
