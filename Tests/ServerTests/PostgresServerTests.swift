import Foundation
import PostgresStorage
import TestSupport
import Testing

@testable import Server

/// What only PostgreSQL has: several server processes on one database, a database that restarts
/// under a running server, and schema versions shared by servers of different ages.
@Suite struct PostgresServerTests {
    @Test func twoServersOnOneDatabaseGiveEachKeyExactlyOneEffect() async throws {
        let database = try await PostgresCluster.sharedDatabase()
        // Both start at once on an empty database: the schema is created exactly once.
        async let startA = ServerProcess(store: .postgres, database: database)
        async let startB = ServerProcess(store: .postgres, database: database)
        let servers = try await [startA, startB]
        let clients = servers.map { APIClient($0.baseURL, token: ServerProcess.tokens["acme"]) }
        let scenario = try await PickingScenario.create(on: clients[0], bulkQty: 200)
        let bulk = scenario.tasks[3]

        func pick(_ client: APIClient, key: String) async throws -> APIClient.Reply {
            try await client.post(
                "/api/picking/pick",
                json: ["pickTaskId": bulk, "qty": 1, "idempotencyKey": key, "workerId": "w", "at": actionTime])
        }
        // Each key reaches both servers twice at the same moment, as a station's retry could.
        let keys = (0..<30).map { "same-\($0)" }
        let replies = try await withThrowingTaskGroup(of: (String, APIClient.Reply).self) { group in
            for key in keys {
                for client in clients + clients { group.addTask { (key, try await pick(client, key: key)) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for key in keys {
            let forKey = replies.filter { $0.0 == key }.map(\.1)
            let fresh = forKey.filter { $0.status == 200 && $0.headers["idempotent-replayed"] == nil }
            #expect(fresh.count == 1, "\(key): \(forKey.map(\.status))")
            #expect(forKey.allSatisfy { $0.status == 200 || $0.errorCode == "request_in_progress" })
        }
        // Different keys for one task at once on both servers: no update is lost.
        let distinct = try await withThrowingTaskGroup(of: Int.self) { group in
            for number in 0..<40 {
                group.addTask { try await pick(clients[number % 2], key: "distinct-\(number)").status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(distinct.allSatisfy { $0 == 200 })
        let batch = try await clients[1].get("/api/batches/\(scenario.batchId)")
        let task = (batch.json["tasks"] as? [[String: Any]] ?? []).first { $0["id"] as? String == bulk }
        #expect(task?["qtyPicked"] as? Int == keys.count + 40)
    }

    @Test func aKeyInFlightOnOneServerGets409OnAnother() async throws {
        let database = try await PostgresCluster.sharedDatabase()
        let serverA = try await ServerProcess(store: .postgres, database: database)
        let serverB = try await ServerProcess(store: .postgres, database: database)
        let clientA = APIClient(serverA.baseURL, token: ServerProcess.tokens["acme"])
        let clientB = APIClient(serverB.baseURL, token: ServerProcess.tokens["acme"])
        let task = try await PickingScenario.create(on: clientA).tasks[0]
        func pick(_ client: APIClient) async throws -> APIClient.Reply {
            try await client.post(
                "/api/picking/pick",
                json: ["pickTaskId": task, "qty": 1, "idempotencyKey": "held", "workerId": "w", "at": actionTime])
        }
        // The first request waits on the task's row lock on server A while holding the key.
        let blocker = try Blocker(.postgres, database, task: task)
        async let first = pick(clientA)
        try await waitForALockWait(in: database)  // the first request now waits, holding the key
        let second = try await pick(clientB)
        #expect(second.status == 409)
        #expect(second.errorCode == "request_in_progress")
        try blocker.release()
        #expect(try await first.status == 200)
        let third = try await pick(clientB)
        #expect(third.headers["idempotent-replayed"] == "true")
        #expect(third.pickTask["qtyPicked"] as? Int == 1)
    }

    @Test func aQtyTapWaitingOnANewShipmentSeesItsBoxedUnits() async throws {
        let database = try await PostgresCluster.sharedDatabase()
        let server = try await ServerProcess(store: .postgres, database: database)
        let client = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let a1 = try await PickingScenario.create(on: client).tasks[0]  // order o1, 3 units
        let pick = try await client.post(
            "/api/picking/pick",
            json: ["pickTaskId": a1, "qty": 3, "idempotencyKey": "p", "workerId": "w", "at": actionTime])
        #expect(pick.status == 200)
        // Another transaction boxes 2 of them while holding the task, as a label being printed would.
        let packer = try PostgresConnection(database)
        try packer.execute("BEGIN")
        try packer.run("SELECT 1 FROM pick_tasks WHERE id = ? FOR UPDATE", [a1])
        try packer.run(
            "INSERT INTO shipments (org, id, order_id, status, created_at) VALUES ('acme', 's1', 'o1', 'active', 't')",
            [])
        try packer.run(
            "INSERT INTO shipment_units (org, shipment_id, pick_task_id, qty) VALUES ('acme', 's1', ?, 2)", [a1])
        async let tap = client.post(
            "/api/picking/set-qty",
            json: ["pickTaskId": a1, "from": 3, "to": 1, "idempotencyKey": "q", "workerId": "w", "at": actionTime])
        try await waitForALockWait(in: database)  // the tap now waits for the task's lock
        try packer.execute("COMMIT")
        let answer = try await tap
        #expect(answer.status == 422)
        #expect(answer.errorCode == "locked_by_shipment")
    }

    @Test func aPickWaitingOnAnOrderChangeIsJudgedAgainstTheNewQuantity() async throws {
        let database = try await PostgresCluster.sharedDatabase()
        let server = try await ServerProcess(store: .postgres, database: database)
        let client = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let a1 = try await PickingScenario.create(on: client).tasks[0]  // order o1 line l1, 3 units
        // The ERP lowers the line to 1 unit in a transaction still open when the picker taps ×2.
        let erp = try PostgresConnection(database)
        try erp.execute("BEGIN")
        try erp.run("UPDATE order_lines SET qty = 1 WHERE org = 'acme' AND order_id = 'o1' AND id = 'l1'", [])
        async let tap = client.post(
            "/api/picking/pick",
            json: ["pickTaskId": a1, "qty": 2, "idempotencyKey": "p", "workerId": "w", "at": actionTime])
        try await waitForALockWait(in: database)  // the pick now waits for the order line
        try erp.execute("COMMIT")
        let answer = try await tap
        #expect(answer.status == 422)
        #expect(answer.errorCode == "over_pick")
    }

    @Test func theDatabaseRestartingGives503sThenRecoversWithoutAServerRestart() async throws {
        let cluster = try await PostgresCluster.started()
        let server = try await ServerProcess(store: .postgres, database: try await cluster.newDatabase())
        let client = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let scenario = try await PickingScenario.create(on: client)
        let task = scenario.tasks[0]
        func pick(key: String) async throws -> APIClient.Reply {
            try await client.post(
                "/api/picking/pick",
                json: ["pickTaskId": task, "qty": 1, "idempotencyKey": key, "workerId": "w", "at": actionTime])
        }
        #expect(try await pick(key: "before").status == 200)
        #expect(try await client.get("/health/ready").status == 200)

        try await cluster.stop()
        let during = try await pick(key: "during")
        #expect(during.status == 503, "\(server.log)")
        #expect(during.errorCode == "database_unavailable")
        // Reachable, but not ready: stations tell the two apart.
        #expect(try await client.get("/health").status == 200)
        let ready = try await APIClient(server.baseURL, token: nil).get("/health/ready")
        #expect(ready.status == 503)
        #expect(ready.errorCode == "database_unavailable")

        try await cluster.start()
        #expect(try await client.get("/health/ready").status == 200)
        let retried = try await pick(key: "during")  // a station retries the same action
        #expect(retried.status == 200)
        #expect(retried.headers["idempotent-replayed"] == nil)
        #expect(try await pick(key: "before").headers["idempotent-replayed"] == "true")
        let batch = try await client.get("/api/batches/\(scenario.batchId)")
        let picked = (batch.json["tasks"] as? [[String: Any]] ?? []).first { $0["id"] as? String == task }?["qtyPicked"]
        #expect(picked as? Int == 2)
    }

    @Test func refusesADatabaseWithANewerSchema() async throws {
        let database = try await PostgresCluster.sharedDatabase()
        let server = try await ServerProcess(store: .postgres, database: database)
        try await server.stop()
        try PostgresConnection(database).run(
            "INSERT INTO schema_migrations (identifier, applied_at) VALUES ('server-99', 'later')", [])
        let refused = try await ProcessRunner.scanpick(["serve", "--config", server.configPath])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("server-99"))
        #expect(refused.standardError.contains("newer scanpick"))
    }
}

/// How `database` in the server's config chooses the store.
@Suite struct ServerDatabaseTests {
    @Test func urlsAndConnectionStringsArePostgresAndPathsAreSQLite() {
        let base = URL(fileURLWithPath: "/etc/scanpick")
        #expect(
            ServerDatabase("postgres://u@db/scanpick", relativeTo: base)
                == .postgres(connectionString: "postgres://u@db/scanpick"))
        #expect(
            ServerDatabase("postgresql://db/s", relativeTo: base) == .postgres(connectionString: "postgresql://db/s"))
        #expect(
            ServerDatabase("host=/run/postgresql dbname=s", relativeTo: base)
                == .postgres(connectionString: "host=/run/postgresql dbname=s"))
        #expect(
            ServerDatabase("var/server.sqlite", relativeTo: base) == .sqlite(path: "/etc/scanpick/var/server.sqlite"))
        #expect(ServerDatabase("/srv/a=b.sqlite", relativeTo: base) == .sqlite(path: "/srv/a=b.sqlite"))
    }

    @Test func thePoolSizeIsReadAndCheckedFromTheConfig() async throws {
        let folder = try TemporaryDirectory()
        let organisations = #""organisations": {"acme": {"tokenSha256": ["\#(String(repeating: "a", count: 64))"]}}"#
        let good = try folder.write(
            "good.json", text: #"{"database": "postgres://db/s", "databasePoolSize": 16, \#(organisations)}"#)
        let configuration = try ServerConfiguration.load(path: good)
        #expect(configuration.databasePoolSize == 16)
        #expect(configuration.database == .postgres(connectionString: "postgres://db/s"))
        #expect(
            try ServerConfiguration.load(path: try folder.write("default.json", text: "{\(organisations)}"))
                .databasePoolSize == 8)
        let bad = try folder.write("bad.json", text: #"{"databasePoolSize": 0, \#(organisations)}"#)
        #expect {
            try ServerConfiguration.load(path: bad)
        } throws: { error in
            String(describing: error).contains("databasePoolSize")
        }
    }

    @Test func logsNeverShowAPassword() {
        let base = URL(fileURLWithPath: "/")
        let url = ServerDatabase("postgres://scanpick:s3cret@db:5432/scanpick", relativeTo: base).description
        #expect(!url.contains("s3cret"))
        #expect(url.contains("db:5432/scanpick"))
        let keywords = ServerDatabase("host=db password=s3cret dbname=s", relativeTo: base).description
        #expect(!keywords.contains("s3cret"))
        #expect(keywords.contains("dbname=s"))
    }
}
