import Foundation
import PostgresStorage
import TestSupport
import Testing

/// A rolling upgrade of several servers behind a load balancer that checks `GET /health/ready`: an
/// old server takes itself out once a newer one has migrated the database, and a stopping server
/// answers 503 for its drain while it still serves, before it stops listening.
@Suite struct RollingUpgradeTests {
    @Test func anOldServerIsNotReadyOnceANewerOneMigratedTheDatabase() async throws {
        let server = try await ServerProcess(store: .postgres)
        let client = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        #expect(try await client.get("/health/ready").status == 200)
        // What a newer server's migration leaves: a row this binary does not know.
        let database = try PostgresConnection(server.database)
        try database.run(
            "INSERT INTO schema_migrations (identifier, applied_at) VALUES ('server-99', '2099-01-01T00:00:00.000Z')",
            [])
        for _ in 0..<3 {
            let ready = try await client.get("/health/ready")
            #expect(ready.status == 503)
            #expect(ready.errorCode == "schema_newer")
            #expect(ready.text.contains("server-99"), "\(ready.text)")
        }
        // It still answers what it is asked directly (a load balancer sends it nothing new).
        #expect(try await client.get("/api/batches/no-such-batch").status == 404)
        // Said once in its log, not at every check.
        #expect(await eventually { LogLines(server.log).lines(of: "schema_newer").count == 1 })
        try database.run("DELETE FROM schema_migrations WHERE identifier = 'server-99'", [])
        #expect(try await client.get("/health/ready").status == 200)
        #expect(try await server.stop() == 0)
    }

    @Test func aStoppingServerAnswersNotReadyWhileItStillServesThenStops() async throws {
        let server = try await ServerProcess(extraConfig: ["drainSeconds": 5])
        let client = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        #expect(try await client.get("/health/ready").status == 200)
        let asked = ContinuousClock.now
        let ended = Task { try await server.end(signal: SIGTERM) }
        // Watched from a thread of its own over plain sockets: the drain is a window of time, and the
        // task pool a parallel suite shares can keep a task waiting longer than that.
        let port = server.port
        let seen = try await onOwnThread { () -> (stopping: Bool, health: Int?, batch: Int?) in
            func get(_ path: String) -> RawConnection.Response? {
                let request =
                    "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(ServerProcess.tokens["acme"] ?? "")\r\n"
                    + "Connection: close\r\n\r\n"
                return (try? RawConnection(port: port))?.exchange(request).0
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if get("/health/ready")?.json["error"] as? String == "server_stopping" {
                    // Meanwhile everything else is served as before.
                    return (true, get("/health")?.status, get("/api/batches/no-such-batch")?.status)
                }
                usleep(10_000)
            }
            return (false, nil, nil)
        }
        #expect(seen.stopping)
        #expect(seen.health == 200)
        #expect(seen.batch == 404)
        #expect(try await ended.value == 0)
        #expect(ContinuousClock.now - asked >= .seconds(5))
        let log = LogLines(server.log)
        #expect(log.lines(of: "draining").count == 1)
        #expect(log.lines(of: "stopped").count == 1)
    }
}
