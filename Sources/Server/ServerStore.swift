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

    /// Locks a pick task's row until commit, so two requests never both read the same `qty_picked`
    /// and each add to it (a lost update). It is a statement of its own, sent in the same round trip
    /// as the read that follows it: under READ COMMITTED that read takes a fresh snapshot once the
    /// lock is held, so it sees everything the transaction it waited for committed, including new
    /// shipment units (a `FOR UPDATE` on the read itself would recheck the task's row but compute
    /// its boxed units from the snapshot taken before the wait).
    var lockPickTask: String? {
        switch self {
        case .sqlite: nil
        case .postgres:
            // The order line too, shared: an ERP feed lowering its quantity waits for this request,
            // or this request waits for the feed and reads the new quantity.
            """
            SELECT 1 AS locked FROM pick_tasks t
            JOIN order_lines l ON l.org = t.org AND l.order_id = t.order_id AND l.id = t.line_id
            WHERE t.org = ? AND t.id = ? FOR UPDATE OF t FOR SHARE OF l
            """
        }
    }

    /// Takes an organisation's batching lock until commit, so two batches never take the same line.
    var lockBatching: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT pg_advisory_xact_lock(hashtextextended('batching' || chr(10) || ?, 0))"
        }
    }

    /// Looks up a stored idempotency key and, on PostgreSQL, claims it until commit without waiting
    /// in one round trip: `claimed` is 0 when another transaction (in any server process) is running
    /// a request with the same key, the 409 case; `request_hash`, `status` and `body` are null when
    /// no answer is stored. SQLite runs one write transaction at a time, so its claim always holds.
    ///
    /// On PostgreSQL the lookup's snapshot is taken just before the claim, so a request that stored
    /// the key in between is not seen: this one then runs, and its insert of the key fails the
    /// primary key at commit, which rolls it back whole and answers 409. The unique key is the
    /// guarantee of one effect; the advisory lock only makes the common case cheap and quick.
    var lookUpIdempotencyKey: String {
        let claim =
            switch self {
            case .sqlite: "1"
            case .postgres: "pg_try_advisory_xact_lock(hashtextextended(?1 || chr(10) || ?2, 1))::int"
            }
        return """
            SELECT \(claim) AS claimed, k.request_hash, k.status, k.body
            FROM (SELECT 1 AS one) AS one LEFT JOIN idempotency_keys k ON k.org = ?1 AND k.key = ?2
            """
    }
}
