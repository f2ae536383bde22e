import Foundation
import PostgresStorage
import SQLiteStorage
import Server
import Storage
import TestSupport
import Timestamps

/// Now, as the action time (`at`, `scannedAt`) of a request a test writes by hand: a time the server
/// reads, inside its idempotency horizon.
let actionTime = Timestamp.iso8601()

/// A running server with one organisation's orders loaded and a batch opened, for picking tests.
struct PickingFixture {
    let server: ServerProcess
    let acme: APIClient
    let globex: APIClient
    /// Task ids of the batch, in pick order: A1 (UPC-A, 3 units), B3 (EAN-13, 2 units), C2 (1 unit).
    let tasks: [String]
    let batchId: String
    /// The action time the fixture's requests carry: now (a fixed date would one day fall behind the
    /// server's idempotency horizon and be refused as too old to deduplicate).
    let at = Timestamp.iso8601()

    init(store: ServerStoreKind) async throws {
        try await self.init(server: try await ServerProcess(store: store))
    }

    /// The fixture on a server the test started (e.g. on a PostgreSQL cluster of its own).
    init(server: ServerProcess) async throws {
        self.server = server
        acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        globex = APIClient(server.baseURL, token: ServerProcess.tokens["globex"])
        let scenario = try await PickingScenario.create(on: acme)
        batchId = scenario.batchId
        tasks = scenario.tasks
    }

    func scan(_ task: String, _ barcode: String, key: String = UUID().uuidString, as client: APIClient? = nil)
        async throws
        -> APIClient.Reply
    {
        try await (client ?? acme).post(
            "/api/picking/submit-scan",
            json: [
                "pickTaskId": task, "barcode": barcode, "scannedAt": at, "idempotencyKey": key,
                "workerId": "worker-003",
            ])
    }

    func pick(_ task: String, qty: Int, key: String = UUID().uuidString) async throws -> APIClient.Reply {
        try await acme.post(
            "/api/picking/pick",
            json: [
                "pickTaskId": task, "qty": qty, "idempotencyKey": key, "workerId": "w", "at": at,
            ])
    }

    func setQty(_ task: String, from: Int, to: Int, key: String = UUID().uuidString) async throws -> APIClient.Reply {
        try await acme.post(
            "/api/picking/set-qty",
            json: [
                "pickTaskId": task, "from": from, "to": to, "idempotencyKey": key, "workerId": "w",
                "at": at,
            ])
    }

    func short(_ task: String, qty: Int, reason: String = "not_found", key: String = UUID().uuidString)
        async throws -> APIClient.Reply
    {
        try await acme.post(
            "/api/picking/short",
            json: [
                "pickTaskId": task, "qty": qty, "reason": reason, "idempotencyKey": key, "workerId": "w", "at": at,
            ])
    }

    /// The batch's `status` as the server now says it.
    func status() async throws -> String? {
        try await acme.get("/api/batches/\(batchId)").json["status"] as? String
    }

    /// The task as the server now sees it.
    func task(_ id: String) async throws -> [String: Any] {
        let batch = try await acme.get("/api/batches/\(batchId)")
        return (batch.json["tasks"] as? [[String: Any]] ?? []).first { $0["id"] as? String == id } ?? [:]
    }

    func picked(_ id: String) async throws -> Int { try await task(id)["qtyPicked"] as? Int ?? -1 }
}

extension APIClient.Reply {
    var pickTask: [String: Any] { json["pickTask"] as? [String: Any] ?? [:] }
}

/// A transaction held open from outside the server, blocking whoever next writes the task.
struct Blocker {
    let sqlite: Database?
    let postgres: PostgresConnection?

    init(_ store: ServerStoreKind, _ database: String, task: String) throws {
        switch store {
        case .sqlite:
            sqlite = try Database(path: database)
            postgres = nil
            try sqlite?.execute("BEGIN IMMEDIATE")
        case .postgres:
            sqlite = nil
            postgres = try PostgresConnection(database)
            try postgres?.execute("BEGIN")
            try postgres?.run("SELECT 1 FROM pick_tasks WHERE id = ? FOR UPDATE", [task])
        }
    }

    func release() throws {
        try sqlite?.execute("COMMIT")
        try postgres?.execute("COMMIT")
    }
}

/// Waits until some session of the PostgreSQL database `database` waits on a lock (a request of the
/// server blocked behind a test's open transaction): exact where a sleep would only be likely. It
/// waits as long as ``eventually`` does: under CI's load a request took over 20 s to get there.
func waitForALockWait(in database: String, timeout: Duration = .seconds(120)) async throws {
    let observer = try PostgresConnection(database)
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        let waiting = try observer.row(
            "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            [])
        if try waiting?.int("n") ?? 0 > 0 { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw ServerProcessError(message: "no request of the server came to wait on the lock in \(timeout)")
}

/// Runs `body` on a connection of its own to `database`, whichever engine holds it.
func read<T>(_ database: ServerDatabase, _ body: (any SQLConnection) throws -> T) throws -> T {
    switch database {
    case .sqlite(let path): try body(try Database(path: path))
    case .postgres(let connectionString): try body(try PostgresConnection(connectionString))
    }
}

extension ServerProcess {
    /// Runs `body` on a connection of its own to this server's database (SQLite or PostgreSQL).
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try ServerTests.read(store == .sqlite ? .sqlite(path: database) : .postgres(connectionString: database), body)
    }
}
