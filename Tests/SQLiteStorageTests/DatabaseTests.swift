import Dispatch
import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import SQLiteStorage

@Suite struct DatabaseTests {
    @Test func opensInWALWithFullSync() throws {
        let folder = try TemporaryDirectory()
        let db = try Database(path: folder.file("a.sqlite"))
        #expect(try db.row("PRAGMA journal_mode")?.string("journal_mode") == "wal")
        #expect(try db.row("PRAGMA synchronous")?.int("synchronous") == 2)
    }

    @Test func bindsAndReadsEveryType() throws {
        let folder = try TemporaryDirectory()
        let db = try Database(path: folder.file("a.sqlite"))
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let bytes: [UInt8] = [0, 1, 255]
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [42, 2.5, "héllo", bytes, String?.none])
        let row = try #require(try db.row("SELECT * FROM t"))
        #expect(try row.int("i") == 42)
        #expect(try row.double("r") == 2.5)
        #expect(try row.string("s") == "héllo")
        #expect(try row.bytes("b") == bytes)
        #expect(try row.optionalString("n") == nil)
        #expect(throws: StorageError.columnType(column: "s", expected: "integer")) { try row.int("s") }
        #expect(throws: StorageError.noSuchColumn("zz")) { try row.int("zz") }
    }

    @Test func textAndBlobsKeepEveryByteIncludingNUL() throws {
        let folder = try TemporaryDirectory()
        let db = try Database(path: folder.file("a.sqlite"))
        try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, b BLOB)")
        try db.run("INSERT INTO t VALUES (?, ?)", ["o9", [UInt8]()])
        // Bound as a C string, "o9\0-other" would have been "o9", a duplicate key.
        try db.run("INSERT INTO t VALUES (?, ?)", ["o9\u{0}-other", [UInt8]([0, 0])])
        #expect(try db.row("SELECT COUNT(*) AS n FROM t")?.int("n") == 2)
        #expect(try db.row("SELECT length(CAST(k AS BLOB)) AS n FROM t WHERE k = ?", ["o9\u{0}-other"])?.int("n") == 9)
        #expect(try db.rows("SELECT k FROM t ORDER BY k").map { try $0.string("k") } == ["o9", "o9\u{0}-other"])
        // An empty blob is an empty blob, not NULL.
        #expect(try db.row("SELECT typeof(b) AS type FROM t WHERE k = 'o9'")?.string("type") == "blob")
        #expect(try db.row("SELECT b FROM t WHERE k = ?", ["o9\u{0}-other"])?.bytes("b") == [0, 0])
        #expect(try db.row("SELECT ? AS empty", [""])?.string("empty") == "")
    }

    @Test func theStatementCacheStaysBoundedAndCorrect() throws {
        let folder = try TemporaryDirectory()
        let db = try Database(path: folder.file("a.sqlite"))
        for round in 0..<2 {
            for number in 0..<(Database.statementCacheSize * 3) {
                // A different SQL text each time, as a list spliced into a statement used to make.
                let value = try db.row("SELECT \(number) + ? AS n", [round])?.int("n")
                #expect(value == number + round)
                #expect(db.cachedStatementCount <= Database.statementCacheSize)
            }
        }
        #expect(db.cachedStatementCount == Database.statementCacheSize)
    }

    @Test func rollsBackWhenTheBodyThrows() throws {
        let folder = try TemporaryDirectory()
        let db = try Database(path: folder.file("a.sqlite"))
        try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES ('a')")
                throw Boom()
            }
        }
        #expect(try db.rows("SELECT * FROM t").isEmpty)
        try db.run("INSERT INTO t VALUES ('a')")
        do {
            try db.run("INSERT INTO t VALUES ('a')")
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.isConstraintViolation)
        }
    }

    @Test func migratesOnceAndRefusesANewerSchema() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("m.sqlite")
        let first = [Migration("t-1", sql: "CREATE TABLE a (x INTEGER)")]
        _ = try DatabaseQueue(path: path, migrations: first)
        let both = first + [Migration("t-2", sql: "CREATE TABLE b (y INTEGER)")]
        let queue = try DatabaseQueue(path: path, migrations: both)
        #expect(try queue.write { try $0.rows("SELECT identifier FROM schema_migrations").count } == 2)
        #expect(try queue.write { try $0.rows("SELECT name FROM sqlite_master WHERE name IN ('a', 'b')").count } == 2)
        #expect(throws: StorageError.schemaTooNew(unknown: ["t-2"])) {
            try DatabaseQueue(path: path, migrations: first)
        }
    }
}

@Suite struct DatabaseQueueTests {
    @Test func aReadSeesOneStateAndCannotWrite() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("r.sqlite")
        let queue = try DatabaseQueue(
            path: path, migrations: [Migration("t-1", sql: "CREATE TABLE t (k INTEGER PRIMARY KEY)")])
        _ = try queue.write { db in try db.run("INSERT INTO t VALUES (1)") }
        let other = try Database(path: path)
        let (before, after) = try queue.read { db in
            let before = try db.row("SELECT COUNT(*) AS n FROM t")?.int("n")
            try other.run("INSERT INTO t VALUES (2)")  // committed by another connection meanwhile
            return (before, try db.row("SELECT COUNT(*) AS n FROM t")?.int("n"))
        }
        #expect(before == 1 && after == 1)
        #expect(throws: SQLiteError.self) { try queue.read { db in try db.run("INSERT INTO t VALUES (3)") } }
        // Writes work again after a read, and the read saw nothing of its own attempt.
        _ = try queue.write { db in try db.run("INSERT INTO t VALUES (4)") }
        #expect(
            try queue.read { db in try db.rows("SELECT k FROM t ORDER BY k").map { try $0.int("k") } } == [1, 2, 4])
    }
}

@Suite struct GroupCommitTests {
    @Test func concurrentWritersAllLandAndEachSeesItsOwnResult() throws {
        let folder = try TemporaryDirectory()
        let queue = try DatabaseQueue(
            path: folder.file("g.sqlite"),
            migrations: [Migration("t-1", sql: "CREATE TABLE t (k INTEGER PRIMARY KEY)")])
        let results = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            let changed = try? queue.groupCommit { db in try db.run("INSERT INTO t VALUES (?)", [index]) }
            results.withLock { $0.append(changed ?? -1) }
        }
        #expect(results.withLock { $0 }.allSatisfy { $0 == 1 })
        #expect(try queue.write { try $0.row("SELECT COUNT(*) AS n FROM t")?.int("n") } == 400)
    }

    @Test func aFailingWriterRollsBackOnlyItsOwnChanges() throws {
        let folder = try TemporaryDirectory()
        let queue = try DatabaseQueue(
            path: folder.file("g.sqlite"),
            migrations: [Migration("t-1", sql: "CREATE TABLE t (k INTEGER PRIMARY KEY)")])
        struct Refused: Error {}
        let outcomes = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            do {
                try queue.groupCommit { db in
                    try db.run("INSERT INTO t VALUES (?)", [index])
                    if index % 2 == 1 { throw Refused() }
                }
                outcomes.withLock { $0.append(true) }
            } catch {
                outcomes.withLock { $0.append(error is Refused ? false : true) }
            }
        }
        #expect(outcomes.withLock { $0.filter { $0 }.count } == 100)
        let kept = try queue.write { db in try db.rows("SELECT k FROM t").map { try $0.int("k") } }
        #expect(kept.count == 100)
        #expect(kept.allSatisfy { $0 % 2 == 0 })
    }

    @Test func aTransactionSQLiteEndsByItselfLeavesNoWriteReportedAsCommittedButLost() throws {
        let folder = try TemporaryDirectory()
        let queue = try DatabaseQueue(
            path: folder.file("g.sqlite"),
            migrations: [Migration("t-1", sql: "CREATE TABLE t (k INTEGER PRIMARY KEY)")])
        struct DiskFull: Error {}
        let reported = Mutex<[Int: Bool]>([:])
        let done = DispatchGroup()
        // Held so that all of them wait for one round together.
        let blocker = DispatchSemaphore(value: 0)
        done.enter()
        queue.groupCommit(.quick, { _ in blocker.wait() }) { _ in done.leave() }
        for index in 0..<30 {
            done.enter()
            queue.groupCommit(
                .quick,
                { db in
                    try db.run("INSERT INTO t VALUES (?)", [index])
                    if index == 20 {  // what SQLite does on SQLITE_FULL or an I/O error: end it all
                        try db.execute("ROLLBACK")
                        throw DiskFull()
                    }
                }
            ) { result in
                reported.withLock { $0[index] = (try? result.get()) != nil }
                done.leave()
            }
        }
        blocker.signal()
        done.wait()
        let kept = Set(try queue.write { db in try db.rows("SELECT k FROM t").map { try $0.int("k") } })
        let committed = Set(reported.withLock { $0 }.filter(\.value).map(\.key))
        #expect(committed == kept, "reported committed but missing: \(committed.subtracting(kept).sorted())")
        #expect(!kept.contains(20))
    }

    @Test func aWriteIsVisibleToANewConnectionWhenItReturns() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("g.sqlite")
        let queue = try DatabaseQueue(
            path: path, migrations: [Migration("t-1", sql: "CREATE TABLE t (k INTEGER)")])
        _ = try queue.groupCommit { db in try db.run("INSERT INTO t VALUES (7)") }
        #expect(try Database(path: path).row("SELECT k FROM t")?.int("k") == 7)
    }
}
