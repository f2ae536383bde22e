import Foundation
import TestSupport
import Testing

/// A server whose database cannot store anything once answered every write 500 `internal_error` and
/// said it was ready (a full disk), or `upserted` into a file that had been deleted. It now answers
/// 503 `storage_full` or `storage_failed` (a client retries, nothing was changed) and is not ready
/// while its writes fail.
@Suite struct StorageTroubleTests {
    static func orders(_ count: Int, prefix: String) -> [String: Any] {
        ["orders": ResourceBoundsTests.orders(count, linesEach: 10, prefix: prefix)]
    }

    @Test func aDeletedDatabaseTakesNoWriteAndIsNotReady() async throws {
        let server = try await ServerProcess()
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        #expect(try await acme.post("/api/orders", json: Self.orders(2, prefix: "before-")).status == 200)
        #expect(try await acme.get("/health/ready").status == 200)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: server.database + suffix) }

        let orders = try await acme.post("/api/orders", json: Self.orders(2, prefix: "after-"))
        #expect(orders.status == 503, "\(orders.text)")
        #expect(orders.errorCode == "storage_failed")
        #expect(!orders.text.contains(server.database))  // the file's path stays in the server's log
        let ready = try await acme.get("/health/ready")
        #expect(ready.status == 503, "\(ready.text)")
        #expect(ready.errorCode == "storage_failed")
        #expect(await eventually { server.log.contains("it was deleted") }, "\(server.log)")
        try await server.stop()
    }

    /// SQLITE_FULL as a full disk gives it: the database on a small tmpfs, the rest of it filled.
    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a small filesystem needs root"))
    func aFullDiskAnswersStorageFullAndIsNotReadyUntilSpaceIsFreed() async throws {
        let disk = try SmallFilesystem()
        let server = try await ServerProcess(database: disk.file("server.sqlite"))
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        #expect(try await acme.post("/api/orders", json: Self.orders(2, prefix: "before-")).status == 200)

        try disk.fill()

        let full = try await acme.post("/api/orders", json: Self.orders(400, prefix: "full-"))
        #expect(full.status == 503, "\(full.text)")
        #expect(full.errorCode == "storage_full")
        #expect((full.json["message"] as? String)?.contains("disk is full") == true)
        let ready = try await acme.get("/health/ready")
        #expect(ready.status == 503, "\(ready.text)")
        #expect(ready.errorCode == "storage_full")

        // Room again: ready, and the same orders are taken.
        try disk.free()
        #expect(try await acme.get("/health/ready").status == 200)
        let again = try await acme.post("/api/orders", json: Self.orders(400, prefix: "full-"))
        #expect(again.status == 200, "\(again.text)")
        try await server.stop()
        withExtendedLifetime(disk) {}  // unmounted once the server is stopped
    }
}
