import Foundation
import TestSupport
import Testing

@testable import Storage

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
        #expect(throws: DatabaseError.columnType(column: "s", expected: "integer")) { try row.int("s") }
        #expect(throws: DatabaseError.noSuchColumn("zz")) { try row.int("zz") }
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
        let first = [Migration(version: 1, sql: "CREATE TABLE a (x INTEGER)")]
        _ = try DatabaseQueue(path: path, migrations: first)
        let both = first + [Migration(version: 2, sql: "CREATE TABLE b (y INTEGER)")]
        let queue = try DatabaseQueue(path: path, migrations: both)
        #expect(try queue.write { try $0.userVersion } == 2)
        #expect(
            try queue.write { try $0.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").count }
                == 2)
        #expect(throws: DatabaseError.schemaTooNew(found: 2, known: 1)) {
            try DatabaseQueue(path: path, migrations: first)
        }
    }
}
