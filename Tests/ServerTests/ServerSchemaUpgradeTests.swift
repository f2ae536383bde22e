import Digest
import Foundation
import HTTPServing
import Logging
import PostgresStorage
import SQLiteStorage
import Storage
import TestSupport
import Testing
import Timestamps
import Wire

@testable import Server

/// A server database written before `server-2` (idempotency keys' times as seconds since 1970)
/// opens with today's code on either engine, upgraded in place: every row kept, a stored answer
/// still replayed, the retention window still measured from when each key was stored, and its
/// batch still open (`server-4`) and its orders given totes (`server-8`).
@Suite struct ServerSchemaUpgradeTests {
    static let pick = #"{"pickTaskId":"task-1","qty":1,"idempotencyKey":"kept","workerId":"w","at":"\#(actionTime)"}"#

    func request(_ path: String, _ json: String) -> HTTPRequest {
        HTTPRequest(method: "POST", path: path, headers: ["authorization": "Bearer t"], body: Array(json.utf8))
    }

    /// What an older server left: `server-1` alone, an order picked once, and two stored answers,
    /// one stored two days ago and one ten days ago.
    func oldServerDatabase(_ store: ServerStoreKind, _ folder: TemporaryDirectory) throws -> ServerDatabase {
        let database: ServerDatabase
        let run: (String, [any DatabaseValueConvertible]) throws -> Void
        switch store {
        case .sqlite:
            let path = folder.file("server.sqlite")
            let db = try Database(path: path)
            try Migration.apply(Array(ServerSchema.sqlite.prefix(1)), to: db)
            database = .sqlite(path: path)
            run = { sql, arguments in try db.run(sql, arguments) }
        case .postgres:
            let connectionString = try PostgresCluster.shared().createDatabase()
            try PostgresMigrator.apply(
                Array(ServerSchema.postgres.prefix(1)), to: try PostgresPool(connectionString, size: 1))
            let db = try PostgresConnection(connectionString)
            database = .postgres(connectionString: connectionString)
            run = { sql, arguments in try db.run(sql, arguments) }
        }
        try run("UPDATE schema_migrations SET applied_at = '2026-11-30T10:00:00Z'", [])
        let at = "2027-01-15T08:00:00.000Z"
        try run("INSERT INTO orders VALUES ('acme', 'o1', 'c', 'z', '2027-01-16', ?)", [at])
        try run("INSERT INTO order_lines VALUES ('acme', 'o1', 'l1', 'SKU', 'A1', '036000291452', 5)", [])
        try run("INSERT INTO batches (org, id, created_at) VALUES ('acme', 'b1', ?)", [at])
        try run(
            "INSERT INTO pick_tasks (org, id, batch_id, order_id, line_id, position, qty_picked) VALUES ('acme', 'task-1', 'b1', 'o1', 'l1', 0, 1)",
            [])
        // A second order, later in the batch's pick order though its id sorts first.
        try run("INSERT INTO orders VALUES ('acme', 'o0', 'c', 'z', '2027-01-16', ?)", [at])
        try run("INSERT INTO order_lines VALUES ('acme', 'o0', 'l1', 'SKU', 'B1', '036000291452', 2)", [])
        try run(
            "INSERT INTO pick_tasks (org, id, batch_id, order_id, line_id, position, qty_picked) VALUES ('acme', 'task-2', 'b1', 'o0', 'l1', 1, 0)",
            [])
        try run(
            """
            INSERT INTO events (org, kind, pick_task_id, delta, qty_after, worker_id, at, idempotency_key, recorded_at)
            VALUES ('acme', 'pick', 'task-1', 1, 1, 'w', 't', 'kept', ?)
            """, [at])
        let write = try IdempotentWrite(
            request("/api/picking/pick", Self.pick), org: "acme",
            horizon: IdempotencyHorizon(retentionDays: 7, marginHours: 24), route: "pick", as: PickRequest.self
        ) { _, _, _ in "unused" }
        let now = Int(Date().timeIntervalSince1970)
        let insertKey = """
            INSERT INTO idempotency_keys (org, key, request_hash, status, body, created_at) VALUES ('acme', ?, ?, 200, ?, ?)
            """
        try run(insertKey, ["kept", write.fingerprint, Array(#"{"answer":"first"}"#.utf8), now - 2 * 86_400])
        try run(insertKey, ["ancient", "other", Array("{}".utf8), now - 10 * 86_400])
        return database
    }

    @Test(arguments: ServerStoreKind.allCases)
    func anOldServerDatabaseUpgradesInPlaceAndKeepsItsAnswers(store: ServerStoreKind) throws {
        let folder = try TemporaryDirectory()
        let database = try oldServerDatabase(store, folder)
        let started = Date()

        let api = try ScanPickAPI(
            configuration: ServerConfiguration(
                listen: ListenAddress(host: "127.0.0.1", port: 0), database: database,
                organisations: ["acme": [SHA256.hex(of: "t")]], idempotencyRetentionDays: 7),
            logger: .discarding)

        // The stored answer is replayed byte for byte and nothing is counted again.
        let replay = api.handle(request("/api/picking/pick", Self.pick))
        #expect(replay.status == 200)
        #expect(String(decoding: replay.body, as: UTF8.self) == #"{"answer":"first"}"#)
        #expect(replay.headers.contains { $0 == ("Idempotent-Replayed", "true") })
        let batch = try #require(
            try JSONSerialization.jsonObject(
                with: Data(
                    api.handle(
                        HTTPRequest(method: "GET", path: "/api/batches/b1", headers: ["authorization": "Bearer t"])
                    ).body))
                as? [String: Any])
        #expect((batch["tasks"] as? [[String: Any]])?.first?["qtyPicked"] as? Int == 1)
        // `server-4`: a batch made before batches could close is open, its task still requires all 5.
        #expect(batch["status"] as? String == "open")
        #expect(batch["closedAt"] == nil)
        #expect((batch["tasks"] as? [[String: Any]])?.first?["qtyRequired"] as? Int == 5)
        // `server-8`: its orders have totes in pick order, nothing is short, no line has a name.
        #expect((batch["tasks"] as? [[String: Any]])?.map { $0["tote"] as? Int } == [1, 2])
        #expect((batch["tasks"] as? [[String: Any]])?.map { $0["qtyShort"] as? Int } == [0, 0])
        #expect((batch["tasks"] as? [[String: Any]])?.allSatisfy { $0["name"] == nil } == true)
        #expect((batch["shortages"] as? [Any])?.isEmpty == true)

        // Times are Timestamp text now, the same instants as the seconds they were.
        let (keys, applied) = try read(database) { db in
            (
                try db.rows("SELECT key, created_at FROM idempotency_keys ORDER BY key", []).map {
                    (try $0.string("key"), try $0.date("created_at"))
                },
                try db.rows("SELECT identifier, applied_at FROM schema_migrations ORDER BY identifier", []).map {
                    (try $0.string("identifier"), try $0.string("applied_at"))
                }
            )
        }
        #expect(keys.map(\.0) == ["ancient", "kept"])
        let twoDaysAgo = started.addingTimeInterval(-2 * 86_400)
        #expect(abs(keys[1].1.timeIntervalSince(twoDaysAgo)) < 5)
        #expect(applied.map(\.0) == (1...8).map { "server-\($0)" })
        #expect(applied.allSatisfy { $0.1.utf8.count == 24 && Timestamp.date($0.1) != nil }, "\(applied)")

        // The retention window reads the converted times: the ten-day-old answer goes, the other stays.
        #expect(try api.pruneIdempotencyKeys() == 1)
        #expect(api.handle(request("/api/picking/pick", Self.pick)).headers.contains { $0.0 == "Idempotent-Replayed" })
        #expect(try read(database) { db in try db.row("SELECT COUNT(*) AS n FROM events", [])?.int("n") } == 1)
    }

    /// The retention window deletes the answers stored before it and never one stored inside it,
    /// also when the clock was set back between two stores (SQLite prunes the oldest rows up to the
    /// first it keeps, so an answer stored after a kept one waits for a later pass) or once set years
    /// ahead (that answer is kept by its date, and the ones stored after it are still pruned).
    @Test(arguments: ServerStoreKind.allCases)
    func pruningDeletesOnlyAnswersOlderThanTheWindow(store: ServerStoreKind) throws {
        let folder = try TemporaryDirectory()
        let database: ServerDatabase =
            switch store {
            case .sqlite: .sqlite(path: folder.file("s.sqlite"))
            case .postgres: .postgres(connectionString: try PostgresCluster.shared().createDatabase())
            }
        let api = try ScanPickAPI(
            configuration: ServerConfiguration(
                listen: ListenAddress(host: "127.0.0.1", port: 0), database: database,
                organisations: ["acme": [SHA256.hex(of: "t")]], idempotencyRetentionDays: 7),
            logger: .discarding)
        let now = Date()
        let stored: [(key: String, daysAgo: Double)] = [
            ("old", 10), ("clock-set-ahead", -3650), ("older", 9), ("recent", 1), ("clock-set-back", 20),
        ]
        try read(database) { db in
            for (key, daysAgo) in stored {
                try db.run(
                    """
                    INSERT INTO idempotency_keys (org, key, request_hash, status, body, created_at)
                    VALUES ('acme', ?, 'h', 200, ?, ?)
                    """, [key, Array("{}".utf8), now.addingTimeInterval(-daysAgo * 86_400)])
            }
        }
        func kept() throws -> Set<String> {
            try read(database) { db in
                Set(try db.rows("SELECT key FROM idempotency_keys", []).map { try $0.string("key") })
            }
        }
        let pruned = try api.pruneIdempotencyKeys(now: now, batch: 1)  // one answer per transaction
        let left = try kept()
        #expect(left.isSuperset(of: ["recent"]) && left.isDisjoint(with: ["old", "older"]), "\(left)")
        switch store {
        case .sqlite: #expect(pruned == 2 && left == ["clock-set-ahead", "recent", "clock-set-back"])
        case .postgres: #expect(pruned == 3 && left == ["clock-set-ahead", "recent"])
        }
        #expect(try api.pruneIdempotencyKeys(now: now) == 0)
        #expect(try api.pruneIdempotencyKeys(now: now.addingTimeInterval(30 * 86_400)) == left.count - 1)
        #expect(try kept() == ["clock-set-ahead"])
        #expect(try api.pruneIdempotencyKeys(now: now.addingTimeInterval(3660 * 86_400)) == 1)
    }
}
