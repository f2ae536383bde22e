import Foundation
import Queue
import Storage
import TestSupport
import Testing

/// A queue database with a damaged page: refused at open with a clear message, salvaged to JSON
/// Lines, imported into a fresh queue with the same keys, and sent once.
@Suite struct SalvageTests {
    @Test func aDamagedQueueIsRefusedSalvagedAndImportedWithItsKeys() async throws {
        let fixture = try await QueueFixture(bulkQty: 1000)
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        for _ in 0..<300 { _ = try fixture.pick(3) }
        let keys = Set(try fixture.queue.actions().map(\.idempotencyKey))
        // Everything into the main file, then one page holding action #150 overwritten with zeros.
        try fixture.queue.database.write { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        let path = fixture.queue.database.path
        let victim = try #require(try fixture.queue.action(150)?.idempotencyKey)
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        let contents = try file.readToEnd() ?? Data()
        // The row's own body (the key alone is also in the key index, on another page).
        let offset = try #require(contents.range(of: Data(#""idempotencyKey":"\#(victim)""#.utf8))?.lowerBound)
        let page = offset / 4096
        #expect(page > 0)
        try file.seek(toOffset: UInt64(page * 4096))
        try file.write(contentsOf: Data(count: 4096))
        try file.close()

        // Every command refuses the damaged queue and says what to do.
        let status = try await ProcessRunner.scanpick(["status", "--config", config])
        #expect(status.status == 1)
        #expect(status.standardError.contains("is damaged"))
        #expect(status.standardError.contains("scanpick queue salvage --to FILE"))
        // Salvage may find rows it cannot read: the message promises nothing it cannot keep.
        #expect(!status.standardError.contains("Nothing is lost"))
        #expect(status.standardError.contains("it lists any row it cannot read"))

        let salvaged = fixture.folder.file("salvage.jsonl")
        let salvage = try await ProcessRunner.scanpick(["queue", "salvage", "--to", salvaged, "--config", config])
        #expect(salvage.status == 0, "\(salvage.standardError)")
        let saved = try SalvageFile.read(salvaged)
        #expect(saved.count > 200)  // only the rows on the zeroed page are lost
        #expect(saved.count < 300)
        #expect(Set(saved.map(\.idempotencyKey)).isSubset(of: keys))
        #expect(!saved.contains { $0.idempotencyKey == victim })
        #expect(salvage.standardOutput.contains("salvaged \(saved.count) unsent actions"))
        #expect(salvage.standardOutput.contains("actions could not be read"))
        var mode = stat()
        stat(salvaged, &mode)
        #expect(mode.st_mode & 0o077 == 0)
        // Salvage never writes over a file.
        #expect(
            try await ProcessRunner.scanpick(["queue", "salvage", "--to", salvaged, "--config", config]).status == 1)

        // Into a fresh queue, with the same keys; a second import queues nothing twice.
        let fresh = try fixture.folder.writePrivate(
            "fresh.json",
            bytes: [UInt8](
                try JSONSerialization.data(withJSONObject: [
                    "station": "test-1", "worker": "worker-test", "server": fixture.server.baseURL.absoluteString,
                    "database": fixture.folder.file("fresh/station.sqlite"),
                    "organisations": ["acme": ["token": QueueFixture.token]],
                ])))
        let imported = try await ProcessRunner.scanpick([
            "queue", "import", salvaged, "--by", "support-jo", "--config", fresh,
        ])
        #expect(imported.standardOutput.contains("imported \(saved.count) actions"), "\(imported.standardError)")
        let again = try await ProcessRunner.scanpick([
            "queue", "import", salvaged, "--by", "support-jo", "--config", fresh,
        ])
        #expect(again.standardOutput.contains("imported 0 actions"))
        #expect(again.standardOutput.contains("\(saved.count) were already in the queue"))
        let drained = try await ProcessRunner.scanpick(["drain", "--config", fresh])
        #expect(drained.status == 0)
        #expect(try await fixture.picked()[3] == saved.count)
        let listed = try await ProcessRunner.scanpick(["queue", "--json", "--config", fresh]).standardOutput
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["idempotencyKey"] as? String }) == Set(saved.map(\.idempotencyKey)))
    }

    /// Looking at a damaged queue (any command's integrity check) and salvaging it read it only: the
    /// main file and the -wal left by a crash, which may hold the last actions, stay as they were.
    @Test func theIntegrityCheckAndSalvageNeverWriteToADamagedQueue() async throws {
        let fixture = try await QueueFixture(bulkQty: 1000)
        for _ in 0..<300 { _ = try fixture.pick(3) }
        try fixture.queue.database.write { db in try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        let victim = try #require(try fixture.queue.action(150)?.idempotencyKey)
        // Ten more actions live only in the -wal when the station dies (copied while it is open).
        for _ in 0..<10 { _ = try fixture.pick(3) }
        let lastKey = try #require(try fixture.queue.action(310)?.idempotencyKey)
        let crashed = fixture.folder.file("crashed/station.sqlite")
        try FileManager.default.createDirectory(
            atPath: fixture.folder.file("crashed"), withIntermediateDirectories: false)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: fixture.queue.database.path + suffix, toPath: crashed + suffix)
        }
        let file = try #require(FileHandle(forUpdatingAtPath: crashed))
        let contents = try file.readToEnd() ?? Data()
        let offset = try #require(contents.range(of: Data(#""idempotencyKey":"\#(victim)""#.utf8))?.lowerBound)
        try file.seek(toOffset: UInt64(offset / 4096 * 4096))
        try file.write(contentsOf: Data(count: 4096))
        try file.close()
        let config = try fixture.folder.writePrivate(
            "crashed.json",
            bytes: [UInt8](
                try JSONSerialization.data(withJSONObject: [
                    "station": "test-1", "worker": "worker-test", "server": fixture.server.baseURL.absoluteString,
                    "database": crashed, "organisations": ["acme": ["token": QueueFixture.token]],
                ])))
        func evidence() throws -> [Data] {
            try ["", "-wal"].map { suffix in try Data(contentsOf: URL(fileURLWithPath: crashed + suffix)) }
        }
        let before = try evidence()

        let status = try await ProcessRunner.scanpick(["status", "--config", config])
        #expect(status.status == 1)
        #expect(status.standardError.contains("is damaged"), "\(status.standardError)")
        #expect(try evidence() == before)

        let salvaged = fixture.folder.file("salvage.jsonl")
        let salvage = try await ProcessRunner.scanpick(["queue", "salvage", "--to", salvaged, "--config", config])
        #expect(salvage.status == 0, "\(salvage.standardError)")
        #expect(try evidence() == before)
        let keys = try SalvageFile.read(salvaged).map(\.idempotencyKey)
        #expect(keys.contains(lastKey))  // read from the -wal, which is still there
        #expect(!keys.contains(victim))
    }

    /// The queue drains by id, so an import goes after what the queue holds: it is refused while the
    /// queue has unsent work of its own, and for a set-quantity older than an action on its task
    /// already here (sent after it, the old count would undo the newer picks).
    @Test func anImportNeverSendsOldWorkAfterNew() async throws {
        let fixture = try await QueueFixture()
        let a1 = fixture.scenario.tasks[0]
        // The damaged queue's unsent work: a pick of B3, then a set-qty of A1 from 0 to 2.
        let old = try ActionQueue(path: fixture.folder.file("old/station.sqlite"))
        try old.enqueue(.pick(org: "acme", pickTaskId: fixture.scenario.tasks[1], location: "B3", qty: 1, worker: "w"))
        try old.enqueue(.setQty(org: "acme", pickTaskId: a1, location: "A1", from: 0, to: 2, worker: "w"))
        let salvaged = try ActionQueue.salvage(path: old.database.path).actions
        let everything = fixture.folder.file("all.jsonl")
        try SalvageFile.write(salvaged, to: everything)
        let picksOnly = fixture.folder.file("picks.jsonl")
        try SalvageFile.write(salvaged.filter { $0.kind == "pick" }, to: picksOnly)

        // The fresh queue took a tap of A1 since the restart.
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        #expect(
            try await ProcessRunner.scanpick([
                "tap", "pick", a1, "--outside-batch", "--org", "acme", "--config", config,
            ]).status == 0)
        func importing(_ file: String) async throws -> ProcessResult {
            try await ProcessRunner.scanpick(["queue", "import", file, "--by", "support-jo", "--config", config])
        }
        let early = try await importing(everything)
        #expect(early.status != 0)
        #expect(early.standardError.contains("has 1 unsent actions of its own"), "\(early.standardError)")
        #expect(early.standardError.contains("nothing was imported"))

        // Sent first: the picks may follow, the older set-qty of A1 may not.
        #expect(try await ProcessRunner.scanpick(["drain", "--config", config]).status == 0)
        let stale = try await importing(everything)
        #expect(stale.status != 0)
        #expect(
            stale.standardError.contains("line 2 of the import file: qty A1 · 0→2"), "\(stale.standardError)")
        #expect(stale.standardError.contains("would undo that one"))
        #expect(try fixture.queue.counts().pending == 0)
        let picks = try await importing(picksOnly)
        #expect(picks.status == 0, "\(picks.standardError)")
        #expect(try await ProcessRunner.scanpick(["drain", "--config", config]).status == 0)
        #expect(try await fixture.picked() == [1, 1, 0])
    }

    /// The row-by-row salvage reaches every id, however large, and a salvage file cut short is
    /// refused whole, never half imported.
    @Test func salvageReachesEveryIdAndAFileCutShortIsRefused() async throws {
        let fixture = try await QueueFixture(bulkQty: 1000)
        for _ in 0..<300 { _ = try fixture.pick(3) }
        // The newest actions have ids past ten million (ids are never reused: a long-lived station).
        try fixture.queue.database.write { db in
            _ = try db.run("UPDATE actions SET id = id + 20000000 WHERE id > 250")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let victim = try #require(try fixture.queue.action(150)?.idempotencyKey)
        let last = try #require(try fixture.queue.action(20_000_300)?.idempotencyKey)
        let path = fixture.queue.database.path
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        let contents = try file.readToEnd() ?? Data()
        let offset = try #require(contents.range(of: Data(#""idempotencyKey":"\#(victim)""#.utf8))?.lowerBound)
        try file.seek(toOffset: UInt64(offset / 4096 * 4096))
        try file.write(contentsOf: Data(count: 4096))
        try file.close()

        let salvage = try ActionQueue.salvage(path: path)
        #expect(!salvage.unreadable.isEmpty)
        #expect(salvage.actions.contains { $0.idempotencyKey == last })
        #expect(salvage.actions.filter { $0.id > 20_000_000 }.count == 50)

        let written = fixture.folder.file("salvage.jsonl")
        try SalvageFile.write(salvage.actions, to: written)
        #expect(try SalvageFile.read(written).count == salvage.actions.count)
        #expect(throws: SalvageFileError.self) { try SalvageFile.write(salvage.actions, to: written) }
        // Cut after its first ten lines (the end of a line, as a full disk or a copy would leave it).
        let lines = try String(contentsOfFile: written, encoding: .utf8).split(separator: "\n")
        let cut = try fixture.folder.writePrivate(
            "cut.jsonl", bytes: Array((lines.prefix(10).joined(separator: "\n") + "\n").utf8))
        #expect(throws: SalvageFileError.incomplete(cut)) { try SalvageFile.read(cut) }

        // A file that is not SQLite's (a config named as the database) is refused at once: a walk
        // of its ids, every read failing alike, once took minutes and found nothing.
        let text = try fixture.folder.write("text.sqlite", text: "hello")
        #expect {
            try ActionQueue.salvage(path: text)
        } throws: { error in
            String(describing: error).contains("it is not a SQLite database")
        }
    }

    @Test func anImportFileIsCheckedBeforeAnythingIsQueued() async throws {
        let folder = try TemporaryDirectory("scanpick-salvage")
        let queue = try ActionQueue(path: folder.file("station.sqlite"))
        let good = try SalvagedActionSample.make(key: "k-1")
        var badKey = try SalvagedActionSample.make(key: "k 2")
        badKey.payload = #"{"idempotencyKey":"k 2","pickTaskId":"t1"}"#
        var wrongBody = try SalvagedActionSample.make(key: "k-3")
        wrongBody.payload = #"{"idempotencyKey":"other","pickTaskId":"t1"}"#
        var control = try SalvagedActionSample.make(key: "k-4")
        control.org = "acme\u{0}"
        var sent = try SalvagedActionSample.make(key: "k-5")
        sent.state = "sent"
        var stranger = try SalvagedActionSample.make(key: "k-6")
        stranger.org = "initech"
        var undated = try SalvagedActionSample.make(key: "k-7")
        undated.createdAt = "x"
        var timeless = try SalvagedActionSample.make(key: "k-8")
        timeless.payload = #"{"idempotencyKey":"k-8","pickTaskId":"t1","qty":1}"#
        var badTime = try SalvagedActionSample.make(key: "k-9")
        badTime.payload = #"{"at":"soon","idempotencyKey":"k-9","pickTaskId":"t1","qty":1}"#
        let organisations: Set<String> = ["acme"]
        for (bad, words) in [
            (badKey, "idempotencyKey"), (wrongBody, "payload does not carry"), (control, "control characters"),
            (sent, "state must be"), (stranger, "organisation 'initech' is not configured on this station"),
            (undated, "createdAt 'x' is not an ISO 8601 time"), (timeless, "payload has no at"),
            (badTime, "payload has no at"),
        ] {
            do {
                _ = try queue.importActions([good, bad], from: "f", by: "x", organisations: organisations)
                Issue.record("imported \(bad)")
            } catch {
                #expect(error.description.contains(words), "\(error)")
            }
        }
        #expect(try queue.actions().isEmpty)
        #expect(try queue.importActions([good], from: "f", by: "x", organisations: organisations).imported == 1)
    }
}

extension SalvageTests {
    /// A short and a batch's close import like any action; a close's body names its batch, which
    /// must be an id a route's path takes as it is.
    @Test func shortsAndClosesImportWithTheirOwnBodies() throws {
        let folder = try TemporaryDirectory("scanpick-salvage")
        let queue = try ActionQueue(path: folder.file("station.sqlite"))
        func action(_ kind: String, target: String, key: String, payload: String) throws -> SalvagedAction {
            var action = try SalvagedActionSample.make(key: key)
            action.kind = kind
            action.pickTaskId = target
            action.payload = payload
            return action
        }
        let short = try action(
            "short", target: "t1", key: "k-s",
            payload:
                #"{"at":"2026-11-30T10:00:00.000Z","idempotencyKey":"k-s","pickTaskId":"t1","qty":1,"reason":"damaged"}"#
        )
        let close = try action(
            "close", target: "batch-1", key: "k-c",
            payload: #"{"at":"2026-11-30T10:00:01.000Z","batchId":"batch-1","idempotencyKey":"k-c","workerId":"w"}"#)
        let elsewhere = try action(
            "close", target: "batch-1", key: "k-e",
            payload: #"{"at":"2026-11-30T10:00:01.000Z","batchId":"batch-2","idempotencyKey":"k-e","workerId":"w"}"#)
        let pathy = try action(
            "close", target: "../orders", key: "k-p",
            payload: #"{"at":"2026-11-30T10:00:01.000Z","batchId":"../orders","idempotencyKey":"k-p","workerId":"w"}"#)
        for (bad, words) in [(elsewhere, "payload does not carry"), (pathy, "letters, digits and - . _ ~ only")] {
            do {
                _ = try queue.importActions([short, bad], from: "f", by: "x", organisations: ["acme"])
                Issue.record("imported \(bad)")
            } catch {
                #expect(error.description.contains(words), "\(error)")
            }
        }
        #expect(try queue.importActions([short, close], from: "f", by: "x", organisations: ["acme"]).imported == 2)
        #expect(try queue.actions().map(\.kind) == [.short, .closeBatch])
        #expect(try queue.actions().map(\.path) == ["/api/picking/short", "/api/batches/batch-1/close"])
    }
}

/// A valid salvaged action to change field by field.
enum SalvagedActionSample {
    static func make(key: String) throws -> SalvagedAction {
        let json = """
            {"id":1,"org":"acme","kind":"pick","pickTaskId":"t1","label":"pick t1 · ×1","idempotencyKey":"\(key)",
             "state":"pending","tries":0,"createdAt":"2026-11-30T10:00:00.000Z",
             "payload":"{\\"at\\":\\"2026-11-30T10:00:00.000Z\\",\\"idempotencyKey\\":\\"\(key)\\",\\"pickTaskId\\":\\"t1\\",\\"qty\\":1}"}
            """
        return try JSONDecoder().decode(SalvagedAction.self, from: Data(json.utf8))
    }
}
