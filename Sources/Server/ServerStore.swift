import ConfigFile
import Foundation
import Metrics
import PostgresStorage
import SQLiteStorage
import Storage
import Timestamps

/// Where the API keeps its data: one SQLite file (one server process), or PostgreSQL (several server
/// processes sharing one database). Both run the same statements through ``SQLConnection``; the few
/// places the engines differ are named by ``SQLDialect``. Each store turns its engine's errors into
/// ``PickingError``s, so no engine's error reaches the HTTP layer.
///
///     let store = try ServerDatabase.sqlite(path: path).openStore(poolSize: 8)
///
/// The stores are `SQLiteServerStore` and `PostgresServerStore`, each in a file of its own, and
/// the dialect is in `SQLDialect.swift`.
protocol ServerStore: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in one write transaction and returns once it is committed (durable). A bulk write
    /// (an order feed, a new batch) lets quick ones (picks, scans) go first where the engine
    /// serialises writers.
    func write<T: Sendable>(_ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T) throws -> T
    /// Whether ``writeLater(_:_:completion:)`` hands the write to a committing thread of the store's
    /// own (SQLite); when false it would block the caller.
    var writesLater: Bool { get }
    /// Queues `body` for a write transaction and returns at once; `completion` gets its result once
    /// committed (durable) or failed, on the committing thread.
    func writeLater<T: Sendable>(
        _ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void)
    /// Runs `body` in a read transaction beside the writes (it never holds the writer).
    func read<T: Sendable>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Throws unless the database answers a query now; returns the migrations it has applied, which
    /// `GET /health/ready` compares with this binary's (a newer server may have migrated it).
    func checkReady() throws -> [String]
    /// Throws unless the database takes a write now: a transaction that adds a row and removes it,
    /// so it needs room on the disk and changes nothing (`GET /health/ready` after writes failed).
    func checkWritable() throws
    /// How long the store's own committing work in progress has run, in nanoseconds (0: none; a
    /// store whose writes run on the caller's thread has none).
    var commitRunningFor: UInt64 { get }
    /// How many writes each commit held together (SQLite's group commit), or nil where each write
    /// commits on its own (PostgreSQL).
    var commitRoundSizes: HistogramCounts? { get }
    /// `error` in the domain's terms: an engine's failure as a ``PickingError``, anything else as it is.
    static func domainError(_ error: any Error) -> any Error
}

/// A database that cannot be opened as configured, in the operator's words.
struct StoreOpenError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How a write is scheduled among the others waiting for the same commit (SQLite's group commit;
/// PostgreSQL runs transactions side by side and ignores it).
typealias WritePriority = DatabaseQueue.WritePriority

extension ServerDatabase {
    /// Opens the store and migrates it (creating a SQLite file's folder first).
    func openStore(poolSize: Int) throws -> any ServerStore {
        switch self {
        case .sqlite(let path):
            try Self.createFolder(of: path)
            if let problem = DatabaseFolder.accessProblem(forDatabase: path) { throw StoreOpenError(problem) }
            return try SQLiteServerStore(path: path)
        case .postgres(let connectionString):
            let pool = try PostgresPool(connectionString, size: poolSize)
            try PostgresMigrator.apply(ServerSchema.postgres, to: pool)
            return PostgresServerStore(pool: pool)
        }
    }

    /// Applies the pending schema migrations without opening a store; returns the identifiers
    /// applied, empty when it was up to date. Refuses a newer schema.
    func migrate() throws -> [String] {
        switch self {
        case .sqlite(let path):
            try Self.createFolder(of: path)
            if let problem = DatabaseFolder.accessProblem(forDatabase: path) { throw StoreOpenError(problem) }
            return try Migration.apply(ServerSchema.sqlite, to: try Database(path: path))
        case .postgres(let connectionString):
            return try PostgresMigrator.apply(ServerSchema.postgres, to: try PostgresPool(connectionString, size: 1))
        }
    }

    /// The migrations applied (with when), pending and unknown (a newer scanpick's), read without
    /// changing anything: a SQLite file that does not exist is left so (all pending).
    func migrationStatus() throws -> (
        applied: [(identifier: String, appliedAt: String)], pending: [String], unknown: [String]
    ) {
        switch self {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                return ([], ServerSchema.sqlite.map(\.identifier), [])
            }
            let db = try Database(readingOnly: path)
            let table = try db.row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
            return try Migration.status(ServerSchema.sqlite, in: db, hasTable: table != nil)
        case .postgres(let connectionString):
            return try PostgresPool(connectionString, size: 1).withConnection { db in
                let table = try db.row(
                    "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'",
                    [])
                return try Migration.status(ServerSchema.postgres, in: db, hasTable: table != nil)
            }
        }
    }

    private static func createFolder(of path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }
}

extension ServerStore {
    /// A write that needs room on the disk and leaves nothing behind (``checkWritable()``).
    static func probeWrite(_ db: any SQLConnection) throws {
        _ = try db.run(
            "INSERT INTO schema_migrations (identifier, applied_at) VALUES ('ready-probe', ?)",
            [Timestamp.iso8601()])
        _ = try db.run("DELETE FROM schema_migrations WHERE identifier = 'ready-probe'", [])
    }

    /// Runs `body`, rethrowing its engine's errors as ``PickingError``s (see each store's `domainError`).
    static func inDomainTerms<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw domainError(error)
        }
    }
}
