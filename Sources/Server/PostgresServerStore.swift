import Metrics
import PostgresStorage
import Storage

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

    func checkReady() throws -> [String] {
        try Self.inDomainTerms { try pool.withConnection { db in try Migration.applied(in: db) } }
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
