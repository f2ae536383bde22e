import PostgresStorage
import Storage

/// Where the API keeps its data: one SQLite file (one server process), or PostgreSQL (several server
/// processes sharing one database). Both run the same statements through ``SQLConnection``; the few
/// places the engines differ are named by ``SQLDialect``.
protocol ServerStore: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` in one write transaction and returns once it is committed (durable).
    func write<T: Sendable>(_ body: @escaping (any SQLConnection) throws -> T) throws -> T
}

/// SQLite: every write goes through one connection's group commit, so transactions never overlap.
struct SQLiteServerStore: ServerStore {
    let queue: DatabaseQueue
    var dialect: SQLDialect { .sqlite }

    func write<T: Sendable>(_ body: @escaping (any SQLConnection) throws -> T) throws -> T {
        try queue.groupCommit { db in try body(db) }
    }
}

/// PostgreSQL: each request runs its own transaction on a pooled connection, concurrently with other
/// requests and other server processes; row locks and advisory locks (see ``SQLDialect``) order the
/// ones that touch the same pick task, batch list or idempotency key.
struct PostgresServerStore: ServerStore {
    let pool: PostgresPool
    var dialect: SQLDialect { .postgres }

    func write<T: Sendable>(_ body: @escaping (any SQLConnection) throws -> T) throws -> T {
        try pool.transaction { db in try body(db) }
    }
}

/// The statements that differ between the engines. SQLite serialises every write transaction, so it
/// needs none of these locks; PostgreSQL runs transactions side by side (READ COMMITTED) and needs
/// each one.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// Appended to a query of pick tasks (aliased `t`) to lock the rows it reads until commit, so two
    /// requests never both read the same `qty_picked` and each add to it (a lost update); the read
    /// returns the latest committed state once the lock is held.
    var lockingPickTasks: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE OF t"
        }
    }

    /// Takes an organisation's batching lock until commit, so two batches never take the same line.
    var lockBatching: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('batching' || chr(10) || ?, 0))"
        }
    }

    /// Tries to claim an idempotency key until commit without waiting: `claimed` is 0 when another
    /// transaction (in any server process) is running a request with the same key, the 409 case.
    var claimIdempotencyKey: String? {
        switch self {
        case .sqlite: nil
        case .postgres:
            "SELECT pg_try_advisory_xact_lock(hashtextextended(? || chr(10) || ?, 1)) AS claimed"
        }
    }
}
