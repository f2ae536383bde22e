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
    /// Throws unless the database answers a query now (`GET /health/ready`).
    func checkReady() throws
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

/// SQLite: every write goes through one connection's group commit, so transactions never overlap.
struct SQLiteServerStore: ServerStore {
    let queue: DatabaseQueue
    var commitRunningFor: UInt64 { queue.commitRunningFor }
    var commitRoundSizes: HistogramCounts? { queue.commitRoundSizes }
    /// A connection of its own for reads (and the readiness probe), so that they run beside the
    /// writes (WAL) instead of waiting for them.
    let reader: DatabaseQueue
    var dialect: SQLDialect { .sqlite }

    init(path: String) throws {
        queue = try DatabaseQueue(path: path, migrations: ServerSchema.sqlite)
        reader = try DatabaseQueue(path: path)
    }

    func write<T: Sendable>(_ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T) throws -> T {
        try Self.inDomainTerms { try queue.groupCommit(priority) { db in try body(db) } }
    }

    var writesLater: Bool { true }

    func writeLater<T: Sendable>(
        _ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        queue.groupCommit(priority, { db in try body(db) }) { result in
            completion(result.mapError(Self.domainError))
        }
    }

    func read<T: Sendable>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try Self.inDomainTerms { try reader.read { db in try body(db) } }
    }

    func checkReady() throws {
        _ = try Self.inDomainTerms {
            try reader.read { db in
                try db.checkFileInPlace()  // a deleted file still answers reads, and takes no write
                return try Migration.applied(in: db)
            }
        }
    }

    /// A write that fits in pages the -wal already holds can pass while every larger one fails, so
    /// the database's filesystem must also have ``roomNeeded`` bytes free.
    func checkWritable() throws {
        var info = statvfs()
        let folder = (queue.path as NSString).deletingLastPathComponent
        if statvfs(folder.isEmpty ? "." : folder, &info) == 0 {
            let free = UInt64(info.f_bavail) &* UInt64(info.f_frsize)
            guard free >= Self.roomNeeded else {
                throw PickingError.storageFull("\(free) bytes free on the filesystem of \(queue.path)")
            }
        }
        _ = try Self.inDomainTerms { try queue.groupCommit(.quick) { db in try Self.probeWrite(db) } }
    }

    /// Bytes a filesystem must have free before a server whose writes failed for want of room says
    /// it is ready again.
    static let roomNeeded: UInt64 = 1 << 20

    /// SQLite's failures as the domain's: one writer at a time, so a constraint never arbitrates
    /// between requests here. A full disk or failed storage is said as such (503, the client
    /// retries); every other engine failure is the store's own (500, logged).
    static func domainError(_ error: any Error) -> any Error {
        switch error {
        case let error as SQLiteError where error.isFull: PickingError.storageFull(String(describing: error))
        case let error as SQLiteError where error.isStorageFailure:
            PickingError.storageFailed(String(describing: error))
        case is SQLiteError, is StorageError: PickingError.storage(String(describing: error))
        default: error
        }
    }
}

/// PostgreSQL: each request runs its own transaction on a pooled connection, concurrently with other
/// requests and other server processes; row locks and advisory locks (see ``SQLDialect``) order the
/// ones that touch the same pick task, batch list or idempotency key.
struct PostgresServerStore: ServerStore {
    let pool: PostgresPool
    /// Writes run on the request's worker thread, which the HTTP server watches.
    var commitRunningFor: UInt64 { 0 }
    /// Each transaction commits on its own.
    var commitRoundSizes: HistogramCounts? { nil }
    var dialect: SQLDialect { .postgres }

    /// Transactions run side by side here; `priority` does not apply.
    func write<T: Sendable>(_ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T) throws -> T {
        try Self.inDomainTerms { try pool.transaction { db in try body(db) } }
    }

    /// Each transaction has a pooled connection of its own, so the API runs writes on its workers.
    var writesLater: Bool { false }

    /// Runs the write on the calling thread (see ``writesLater``).
    func writeLater<T: Sendable>(
        _ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        completion(Result { try write(priority, body) })
    }

    func read<T: Sendable>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try Self.inDomainTerms { try pool.transaction { db in try body(db) } }
    }

    func checkReady() throws {
        _ = try Self.inDomainTerms { try pool.withConnection { db in try db.row("SELECT 1 AS one", []) } }
    }

    func checkWritable() throws {
        try write(.quick) { db in try Self.probeWrite(db) }
    }

    /// PostgreSQL's failures as the domain's. The one unique key two requests race for is an
    /// idempotency key: another server process stored it between this request's look and its insert,
    /// its transaction won and this one rolled back, and retrying replays its answer. A broken
    /// connection or a database shutting down is unavailability; anything else is the store's own.
    static func domainError(_ error: any Error) -> any Error {
        switch error {
        case let error as PostgresError where error.isUniqueViolation: PickingError.keyInUse
        case let error as PostgresError where error.isUnavailable: PickingError.unavailable(error.description)
        case let error as PostgresError where error.isDiskFull: PickingError.storageFull(error.description)
        case let error as PostgresError where error.isStorageFailure: PickingError.storageFailed(error.description)
        case is PostgresError, is StorageError: PickingError.storage(String(describing: error))
        default: error
        }
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

/// The statements that differ between the engines. SQLite serialises every write transaction, so it
/// needs none of these locks; PostgreSQL runs transactions side by side (READ COMMITTED) and needs
/// each one.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// Whether transactions run side by side, so a read that a write depends on must lock its rows
    /// first (PostgreSQL, READ COMMITTED); SQLite serialises every write transaction.
    var locksRows: Bool {
        switch self {
        case .sqlite: false
        case .postgres: true
        }
    }

    /// The texts of the JSON array of strings bound to `parameter`, as rows of one column (for
    /// `IN (…)`): one statement whatever the length of the list.
    func textsOfJSONArray(_ parameter: String) -> String {
        switch self {
        case .sqlite: "SELECT value FROM json_each(\(parameter))"
        case .postgres: "SELECT json_array_elements_text(CAST(\(parameter) AS json))"
        }
    }

    /// The rows of the JSON array bound to `parameter`, named `alias` (its items are `alias.value`).
    func jsonArray(_ parameter: String, as alias: String) -> String {
        switch self {
        case .sqlite: "json_each(\(parameter)) AS \(alias)"
        case .postgres: "json_array_elements(CAST(\(parameter) AS json)) AS \(alias)(value)"
        }
    }

    /// The rows of the JSON array in field `field` of each item of `outer`, named `alias`.
    func jsonArray(field: String, of outer: String, as alias: String) -> String {
        switch self {
        case .sqlite: "json_each(\(outer).value, '$.\(field)') AS \(alias)"
        case .postgres: "json_array_elements(\(outer).value->'\(field)') AS \(alias)(value)"
        }
    }

    /// Field `field` (a string) of the JSON object in row `alias`.
    func jsonText(_ alias: String, _ field: String) -> String {
        switch self {
        case .sqlite: "json_extract(\(alias).value, '$.\(field)')"
        case .postgres: "\(alias).value->>'\(field)'"
        }
    }

    /// Field `field` (a whole number) of the JSON object in row `alias`.
    func jsonInteger(_ alias: String, _ field: String) -> String {
        switch self {
        case .sqlite: "json_extract(\(alias).value, '$.\(field)')"
        case .postgres: "CAST(\(alias).value->>'\(field)' AS BIGINT)"
        }
    }

    /// A new random identifier made by the database: `prefix` and 16 hex digits, as
    /// `PickingStore.newIdentifier()` makes them.
    func newIdentifier(prefix: String) -> String {
        switch self {
        case .sqlite: "'\(prefix)' || lower(hex(randomblob(8)))"
        case .postgres: "'\(prefix)' || substr(replace(CAST(gen_random_uuid() AS TEXT), '-', ''), 1, 16)"
        }
    }

    /// Takes an organisation's batching lock until commit, so two batches never take the same line.
    var lockBatching: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('batching' || chr(10) || ?, 0))"
        }
    }

    /// Takes an organisation's station lock until commit, so servers side by side adding stations
    /// never pass the organisation's limit.
    var lockStations: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('stations' || chr(10) || ?, 0))"
        }
    }

    /// Takes an organisation's fleet-session lock until commit, so servers side by side signing leads
    /// in never keep more than the organisation's limit of sessions.
    var lockFleetSessions: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('fleet sessions' || chr(10) || ?, 0))"
        }
    }

    /// Locks one station's row until commit where transactions run side by side (PostgreSQL), so a
    /// heartbeat and a lead clearing its call for help never both read the row before either writes.
    var lockStationRow: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT 1 AS locked FROM station_heartbeats WHERE org = ? AND station = ? FOR UPDATE"
        }
    }

    /// The statement, with its arguments, that deletes at most `limit` of the answers stored before
    /// `cutoff` (see ``IdempotencyRecords/prune(storedBefore:now:atMost:in:dialect:)``); fewer than
    /// `limit` means none is left to delete. SQLite appends answers to a rowid table in the order
    /// they are stored (`server-6`), so the expired ones come first: the statement takes the oldest
    /// `limit` rows and deletes those before the first one still kept, reading `limit` rows a pass
    /// whatever the table's size, with no index of ages to write on every store. A clock set back
    /// only keeps answers longer; an answer dated past `now` plus ``futureDateTolerance`` (a clock
    /// once set ahead) is kept by its own date and passed over.
    func pruneIdempotencyKeys(storedBefore cutoff: Date, now: Date, limit: Int) -> (
        sql: String, arguments: [any DatabaseValueConvertible]
    ) {
        switch self {
        case .sqlite:
            (
                """
                WITH oldest AS (
                    SELECT rowid AS id, created_at FROM idempotency_keys WHERE created_at <= ?2
                    ORDER BY rowid LIMIT ?3)
                DELETE FROM idempotency_keys WHERE rowid IN (
                    SELECT id FROM oldest WHERE created_at < ?1
                    AND id < COALESCE((SELECT MIN(id) FROM oldest WHERE created_at >= ?1), 9223372036854775807))
                """, [cutoff, now.addingTimeInterval(Self.futureDateTolerance), limit]
            )
        case .postgres:
            (
                """
                DELETE FROM idempotency_keys WHERE (org, key) IN (
                    SELECT org, key FROM idempotency_keys WHERE created_at < ?1 LIMIT ?2)
                """, [cutoff, limit]
            )
        }
    }

    /// How far past the server's clock a stored answer's date may be and still be taken as the
    /// place where SQLite's pruning stops (seconds).
    static let futureDateTolerance: TimeInterval = 86_400

    /// An expression that claims idempotency key `key` of organisation `org` (both placeholders)
    /// until commit without waiting: 1 when claimed, 0 when another transaction (in any server
    /// process) holds it. SQLite runs one write transaction at a time, so its claim always holds.
    func claimIdempotencyKey(_ org: String, _ key: String) -> String {
        switch self {
        case .sqlite: "1"
        case .postgres: "pg_try_advisory_xact_lock(hashtextextended(\(org) || chr(10) || \(key), 1))::int"
        }
    }
}
