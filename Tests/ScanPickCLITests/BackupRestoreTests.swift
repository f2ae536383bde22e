import Foundation
import Queue
import SQLiteStorage
import Station
import TestSupport
import Testing

/// `scanpick backup` while the server takes orders, and `scanpick restore` with it stopped: the
/// copy holds every order acknowledged before the backup began and a prefix of those sent during
/// it, restore refuses a running server, and the server serves the restored database.
@Suite struct BackupRestoreTests {
    static func order(_ id: String) -> [String: Any] {
        [
            "id": id, "carrier": "DHL", "zone": "Z", "shipBy": "2026-12-09",
            "lines": [["id": "l1", "sku": "S1", "location": "A-1", "barcode": "4006381333931", "qty": 1]],
        ]
    }

    static func orderIds(_ database: String) throws -> Set<String> {
        let db = try Database(readingOnly: database)
        return Set(try db.rows("SELECT id FROM orders").map { try $0.string("id") })
    }

    @Test func aBackupUnderLoadRestoresEveryOrderAcknowledgedBeforeIt() async throws {
        let server = try await ServerProcess()
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        for number in 0..<20 {
            #expect(
                try await acme.post("/api/orders", json: ["orders": [Self.order("before-\(number)")]]).status == 200)
        }
        // Orders keep coming, one after another, while the backup runs.
        let load = Task {
            var sent = 0
            while !Task.isCancelled {
                do {
                    let reply = try await acme.post("/api/orders", json: ["orders": [Self.order("during-\(sent)")]])
                    if reply.status == 200 { sent += 1 }
                } catch  where Task.isCancelled {
                    break  // the request the cancellation cut short
                }
            }
            return sent
        }
        let folder = try TemporaryDirectory()
        let backup = folder.file("server-backup.sqlite")
        let made = try await ProcessRunner.scanpick(["backup", "--to", backup, "-c", server.configPath])
        load.cancel()
        let during = try await load.value
        #expect(made.status == 0, "\(made.standardError)")
        #expect(made.standardOutput.contains("backed up \(server.database) to \(backup)"))
        let copied = try Self.orderIds(backup)
        #expect(copied.isSuperset(of: (0..<20).map { "before-\($0)" }))
        // Those sent during it: the first m of them, none missing in between (one snapshot).
        let duringCopied = copied.filter { $0.hasPrefix("during-") }
        #expect(duringCopied == Set((0..<duringCopied.count).map { "during-\($0)" }), "\(duringCopied.sorted())")
        #expect(duringCopied.count <= during + 1)
        let again = try await ProcessRunner.scanpick(["backup", "--to", backup, "-c", server.configPath])
        #expect(again.status == 1)
        #expect(again.standardError.contains("exists already"))

        // Running, the server's database is not pulled from under it.
        #expect(try await acme.post("/api/orders", json: ["orders": [Self.order("after")]]).status == 200)
        let refused = try await ProcessRunner.scanpick(["restore", "--from", backup, "-c", server.configPath])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("is open in process"), "\(refused.standardError)")
        #expect(refused.standardError.contains("systemctl stop scanpick-serve"))
        // A file that is not a backup is refused before anything moves.
        let junk = try folder.write("junk.sqlite", text: "not a database")
        _ = try await server.stop()
        let notABackup = try await ProcessRunner.scanpick(["restore", "--from", junk, "-c", server.configPath])
        #expect(notABackup.status == 1)
        #expect(try Self.orderIds(server.database).contains("after"))

        let restored = try await ProcessRunner.scanpick(["restore", "--from", backup, "-c", server.configPath])
        #expect(restored.status == 0, "\(restored.standardError)")
        #expect(restored.standardOutput.contains("the database it replaced is \(server.database).replaced-"))
        let ids = try Self.orderIds(server.database)
        #expect(ids == copied)
        #expect(!ids.contains("after"))
        try await server.start()
        let restarted = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        #expect(try await restarted.post("/api/orders", json: ["orders": [Self.order("later")]]).status == 200)
        #expect(try Self.orderIds(server.database).contains("later"))
    }

    /// A station's queue the same way: restore refuses while a process (here this test) has it
    /// open, and puts back the actions the backup held.
    @Test func aStationsQueueIsBackedUpAndPutBack() async throws {
        let folder = try TemporaryDirectory()
        var queue: ActionQueue? = try ActionQueue(
            path: folder.file("station.sqlite"), extraMigrations: PickListCache.migrations)
        try queue?.enqueue(.pick(org: "acme", pickTaskId: "t1", location: nil, qty: 1, worker: "w"))
        _ = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let station = try folder.writePrivate(
            "station.json",
            bytes: Array(
                #"{"station": "s1", "worker": "w1", "server": "http://127.0.0.1:9", "database": "station.sqlite", "organisations": {"acme": {"tokenFile": "acme.token"}}}"#
                    .utf8))
        let backup = folder.file("queue-backup.sqlite")
        let made = try await ProcessRunner.scanpick(["backup", "--to", backup, "-c", station])
        #expect(made.status == 0, "\(made.standardError)")
        #expect(made.standardOutput.contains("stop scanpick-station"))
        try queue?.enqueue(.pick(org: "acme", pickTaskId: "t2", location: nil, qty: 1, worker: "w"))
        let refused = try await ProcessRunner.scanpick(["restore", "--from", backup, "-c", station])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("is open in process \(getpid())"), "\(refused.standardError)")
        queue = nil
        let restored = try await ProcessRunner.scanpick(["restore", "--from", backup, "-c", station])
        #expect(restored.status == 0, "\(restored.standardError)")
        let reopened = try ActionQueue(path: folder.file("station.sqlite"), extraMigrations: PickListCache.migrations)
        #expect(try reopened.counts().pending == 1)
    }
}
