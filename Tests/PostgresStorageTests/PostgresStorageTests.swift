import Storage
import TestSupport
import Testing

@testable import PostgresStorage

/// The libpq layer against the test cluster: placeholders, values both ways, transactions, the pool.
@Suite struct PostgresStorageTests {
    @Test func sqlitePlaceholdersBecomeNumberedOnesOutsideQuotes() {
        #expect(Placeholders.postgres("SELECT ? , ?") == "SELECT $1 , $2")
        #expect(
            Placeholders.postgres("WHERE a = ?1 AND (?2 IS NULL OR b = ?2) AND c = ?")
                == "WHERE a = $1 AND ($2 IS NULL OR b = $2) AND c = $3")
        #expect(Placeholders.postgres("SELECT '?', \"?\", ?") == "SELECT '?', \"?\", $1")
        #expect(Placeholders.postgres("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', $1")
    }

    @Test func timeoutsDefaultUnlessTheConnectionStringSetsThem() throws {
        let database = try PostgresCluster.shared().createDatabase()
        let plain = try PostgresConnection(database)
        #expect(plain.setting("connect_timeout") == "5")
        #expect(plain.setting("tcp_user_timeout") == "10000")
        #expect(plain.setting("dbname")?.hasPrefix("test_") == true)
        let own = try PostgresConnection(database + " connect_timeout=2")
        #expect(own.setting("connect_timeout") == "2")
        #expect(throws: PostgresError.self) { try PostgresConnection("host=/nonexistent-dir dbname=x") }
    }

    @Test func textWithNULIsRefusedNotCutShort() throws {
        let db = try PostgresConnection(try PostgresCluster.shared().createDatabase())
        try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        try db.run("INSERT INTO t VALUES (?)", ["o9"])
        // Sent as a C string, "o9\0-other" would arrive as "o9" and collide with it.
        let error = #expect(throws: PostgresError.self) { try db.run("INSERT INTO t VALUES (?)", ["o9\u{0}-other"]) }
        #expect(error?.sqlState == "22021")
        #expect(error?.isConnectionFailure == false)
        #expect(throws: PostgresError.self) { try db.runLater("INSERT INTO t VALUES (?)", ["x\u{0}"]) }
        #expect(try db.row("SELECT COUNT(*) AS n FROM t", [])?.int("n") == 1)
    }

    @Test func preparedStatementsStayBoundedAndCorrect() throws {
        let db = try PostgresConnection(try PostgresCluster.shared().createDatabase())
        try db.execute("CREATE TABLE t (n BIGINT)")
        try db.execute("BEGIN")
        for number in 0..<(PostgresConnection.preparedStatementLimit * 3) {
            // Deferred writes that name statements about to be evicted are sent before the eviction.
            try db.runLater("INSERT INTO t VALUES (\(number) + ?)", [1])
            #expect(db.preparedStatementCount <= PostgresConnection.preparedStatementLimit)
        }
        try db.execute("COMMIT")
        #expect(
            try db.row("SELECT COUNT(*) AS n, SUM(n) AS total FROM t", [])?.int("n") == PostgresConnection
                .preparedStatementLimit * 3)
        let expected = (0..<(PostgresConnection.preparedStatementLimit * 3)).reduce(0) { $0 + $1 + 1 }
        #expect(try db.row("SELECT SUM(n) AS total FROM t", [])?.int("total") == expected)
        let count = try db.row("SELECT COUNT(*) AS n FROM pg_prepared_statements", [])?.int("n") ?? 0
        #expect(count <= PostgresConnection.preparedStatementLimit + 1)
    }

    @Test func valuesRoundTripWithTheirTypes() throws {
        let db = try PostgresConnection(try PostgresCluster.shared().createDatabase())
        try db.execute("CREATE TABLE t (i BIGINT, r DOUBLE PRECISION, s TEXT, b BYTEA, n TEXT, ok BOOLEAN)")
        let bytes: [UInt8] = [0, 1, 0xFE, 0xFF, 10, 92]
        #expect(
            try db.run(
                "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [42, 2.5, "naïve 'quoted'", bytes, String?.none, true]) == 1)
        let row = try #require(try db.row("SELECT * FROM t", []))
        #expect(try row.int("i") == 42)
        #expect(try row.double("r") == 2.5)
        #expect(try row.string("s") == "naïve 'quoted'")
        #expect(try row.bytes("b") == bytes)
        #expect(try row.optionalString("n") == nil)
        #expect(try row.int("ok") == 1)
        #expect(try db.row("SELECT COALESCE(SUM(i), 0) AS total FROM t", [])?.int("total") == 42)
    }

    @Test func aFailedTransactionLeavesNothingAndTheConnectionGoesOn() throws {
        let pool = try PostgresPool(try PostgresCluster.shared().createDatabase(), size: 2)
        try pool.transaction { db in try db.execute("CREATE TABLE t (id TEXT PRIMARY KEY)") }
        #expect(throws: PostgresError.self) {
            try pool.transaction { db in
                try db.run("INSERT INTO t VALUES (?)", ["a"])
                try db.run("INSERT INTO t VALUES (?)", ["a"])  // unique violation: all rolled back
            }
        }
        do {
            _ = try pool.transaction { db in try db.run("INSERT INTO t VALUES (?)", ["a"]) }
        } catch let error as PostgresError {
            Issue.record("the pool should go on after a failed transaction: \(error)")
        }
        let count = try pool.transaction { db in try db.row("SELECT COUNT(*) AS n FROM t", [])?.int("n") }
        #expect(count == 1)
    }

    @Test func manyDeferredWritesInOneTransactionAllLandInOrder() throws {
        let pool = try PostgresPool(try PostgresCluster.shared().createDatabase(), size: 1)
        try pool.transaction { db in try db.execute("CREATE TABLE t (n INT PRIMARY KEY, after INT)") }
        let count = 20 * PostgresConnection.longestPipeline + 7  // sent in slices
        try pool.transaction { db in
            for number in 0..<count { try db.runLater("INSERT INTO t VALUES (?, ?)", [number, number - 1]) }
        }
        let rows = try pool.transaction { db in try db.row("SELECT COUNT(*) AS n, MAX(n) AS top FROM t", []) }
        #expect(try rows?.int("n") == count)
        #expect(try rows?.int("top") == count - 1)
        // A deferred write's error surfaces when it is sent (here at COMMIT) and rolls everything back.
        #expect(throws: PostgresError.self) {
            try pool.transaction { db in
                try db.runLater("INSERT INTO t VALUES (?, ?)", [count, 0])
                try db.runLater("INSERT INTO t VALUES (?, ?)", [0, 0])  // duplicate key
            }
        }
        #expect(try pool.transaction { db in try db.row("SELECT COUNT(*) AS n FROM t", [])?.int("n") } == count)
    }

    @Test func migrationsApplyOnceAndRecordTheirVersion() throws {
        let pool = try PostgresPool(try PostgresCluster.shared().createDatabase(), size: 1)
        let migrations = [
            Migration("m-1", sql: "CREATE TABLE a (x INT)"), Migration("m-2", sql: "CREATE TABLE b (y INT)"),
        ]
        #expect(try PostgresMigrator.apply(Array(migrations.prefix(1)), to: pool) == ["m-1"])
        #expect(try PostgresMigrator.apply(migrations, to: pool) == ["m-2"])
        #expect(try PostgresMigrator.apply(migrations, to: pool) == [])
        #expect(throws: StorageError.schemaTooNew(unknown: ["m-2"])) {
            try PostgresMigrator.apply(Array(migrations.prefix(1)), to: pool)
        }
    }
}
