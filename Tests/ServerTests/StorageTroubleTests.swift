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
    @Test(.enabled(if: getuid() == 0, "mounting a small filesystem needs root"))
    func aFullDiskAnswersStorageFullAndIsNotReadyUntilSpaceIsFreed() async throws {
        let folder = try TemporaryDirectory("scanpick-full-disk")
        let small = folder.file("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: false)
        guard mount("tmpfs", small, "tmpfs", 0, "size=8m,mode=0700") == 0 else {
            throw ServerProcessError(message: "mount tmpfs on \(small): \(String(cString: strerror(errno)))")
        }
        defer { umount2(small, Int32(MNT_DETACH)) }
        let server = try await ServerProcess(database: small + "/server.sqlite")
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        #expect(try await acme.post("/api/orders", json: Self.orders(2, prefix: "before-")).status == 200)

        // Fill what is left of the filesystem.
        let filler = small + "/filler"
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        let chunk = [UInt8](repeating: 0xA5, count: 64 << 10)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        #expect(errno == ENOSPC)
        close(descriptor)

        let full = try await acme.post("/api/orders", json: Self.orders(400, prefix: "full-"))
        #expect(full.status == 503, "\(full.text)")
        #expect(full.errorCode == "storage_full")
        #expect((full.json["message"] as? String)?.contains("disk is full") == true)
        let ready = try await acme.get("/health/ready")
        #expect(ready.status == 503, "\(ready.text)")
        #expect(ready.errorCode == "storage_full")

        // Room again: ready, and the same orders are taken.
        try FileManager.default.removeItem(atPath: filler)
        #expect(try await acme.get("/health/ready").status == 200)
        let again = try await acme.post("/api/orders", json: Self.orders(400, prefix: "full-"))
        #expect(again.status == 200, "\(again.text)")
        try await server.stop()
    }
}
