import CSQLite
import Foundation
import Storage

/// One SQLite connection with a bounded cache of prepared statements (the least recently used is
/// finalised when it is full). Text and blobs are bound with their byte length, so a NUL inside a
/// value is kept, never a place where the value silently ends. Not thread-safe: share it through a
/// ``DatabaseQueue``, which serialises access.
///
///     let db = try Database(path: "var/station.sqlite")
///     try db.run("INSERT INTO t (a) VALUES (?)", [42])
///     let rows = try db.rows("SELECT a FROM t WHERE a > ?", [1])
public final class Database {
    public let path: String
    private var handle: OpaquePointer?
    private var statements: [String: CachedStatement] = [:]
    private var statementUses = 0
    /// The device and inode of the -wal this connection writes (a writing connection's, once seen).
    private var walIdentity: (device: UInt64, inode: UInt64)?
    /// Prepared statements kept at most.
    public static let statementCacheSize = 64

    private struct CachedStatement {
        var statement: OpaquePointer
        var lastUse: Int
        /// The result's column names, read once.
        var columns: [String]
    }

    /// Opens (creating if needed) the database at `path` in WAL mode with `synchronous=FULL`: when a
    /// transaction's commit returns, the change survives a crash or power cut.
    public convenience init(path: String, busyTimeoutMilliseconds: Int32 = 5000) throws(SQLiteError) {
        try self.init(path: path, readOnly: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    /// Opens the existing database at `path` for reading only: nothing is written to it or its -wal
    /// (no journal mode is set, no checkpoint runs on close), so a damaged file can be examined and
    /// read without destroying the evidence. Only SQLite's -shm index may be rebuilt.
    ///
    ///     let db = try Database(readingOnly: "var/station.sqlite")
    public convenience init(readingOnly path: String, busyTimeoutMilliseconds: Int32 = 5000) throws(SQLiteError) {
        try self.init(path: path, readOnly: true, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }

    private init(path: String, readOnly: Bool, busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        self.path = path
        var opened: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        handle = opened
        guard status == SQLITE_OK else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(opened)
            handle = nil
            throw .sqlite(code: status, message: "\(path): \(message)", sql: nil)
        }
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        guard !readOnly else { return }
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        walIdentity = Self.identity(path + "-wal")
    }

    /// The device and inode of the file at `path`, or nil when there is none.
    private static func identity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Throws ``SQLiteError/fileGone(path:reason:)`` when the file at the database's path is no
    /// longer the one this connection has open (deleted, or another file put in its place), or its
    /// -wal is not (a commit there would be lost at the next restart). Two `stat`s: cheap enough
    /// for every commit (``transaction(_:_:)`` calls it before committing a write).
    public func checkFileInPlace() throws(SQLiteError) {
        guard let handle else { return }
        var moved: Int32 = 0
        if sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK, moved != 0 {
            throw .fileGone(
                path: path,
                reason: access(path, F_OK) == 0 ? "another file was put in its place" : "it was deleted")
        }
        guard let wal = walIdentity else {
            walIdentity = Self.identity(path + "-wal")  // made by the first write
            return
        }
        guard let now = Self.identity(path + "-wal") else {
            throw .fileGone(path: path, reason: "its -wal was deleted")
        }
        if now != wal { throw .fileGone(path: path, reason: "another file was put in the place of its -wal") }
    }

    /// Copies the whole database as this connection reads it (its open file and -wal, wherever
    /// their names now are) into a new file at `destination`, readable by its owner alone: the way
    /// to keep what a deleted database held. Refuses a destination that exists.
    public func backup(to destination: String) throws(SQLiteError) {
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .sqlite(
                code: SQLITE_CANTOPEN, message: "\(destination): \(String(cString: strerror(errno)))", sql: nil)
        }
        close(descriptor)
        var target: OpaquePointer?
        defer { sqlite3_close_v2(target) }
        var status = sqlite3_open_v2(destination, &target, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let target else {
            throw .sqlite(code: status, message: "\(destination): cannot open the copy", sql: nil)
        }
        guard let backup = sqlite3_backup_init(target, "main", handle, "main") else {
            throw .sqlite(code: sqlite3_errcode(target), message: String(cString: sqlite3_errmsg(target)), sql: nil)
        }
        status = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw .sqlite(
                code: status == SQLITE_DONE ? finished : status,
                message: "copying \(path) to \(destination): \(String(cString: sqlite3_errmsg(target)))", sql: nil)
        }
    }

    deinit {
        for cached in statements.values { sqlite3_finalize(cached.statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no arguments and return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? errorMessage
            sqlite3_free(message)
            throw .sqlite(code: status, message: text, sql: sql)
        }
    }

    /// Runs a statement with `arguments` bound to its `?` parameters; returns the rows changed.
    @discardableResult
    public func run(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(SQLiteError) -> Int {
        let statement = try prepared(sql, arguments)
        defer { sqlite3_reset(statement) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw failure(status, sql) }
        return Int(sqlite3_changes(handle))
    }

    /// The rows a query returns.
    public func rows(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(SQLiteError) -> [Row] {
        let (statement, columns) = try preparedWithColumns(sql, arguments)
        defer { sqlite3_reset(statement) }
        let count = Int32(columns.count)
        var rows: [Row] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw failure(status, sql) }
            rows.append(Row(columns: columns, values: (0..<count).map { column(statement, $0) }))
        }
        return rows
    }

    /// The first row a query returns, or nil.
    public func row(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(SQLiteError) -> Row? {
        try rows(sql, arguments).first
    }

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes the write lock at once: no other writer can slip in between read and write.
        case immediate = "IMMEDIATE"
        case deferred = "DEFERRED"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// A write (``TransactionKind/immediate``) is committed only while the database's files are the
    /// ones open (``checkFileInPlace()``): a commit to a deleted file would be confirmed and lost.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try run("BEGIN \(kind.rawValue)")  // run(), not execute(): the statements stay prepared
        do {
            let result = try body()
            if kind == .immediate { try checkFileInPlace() }
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    /// Whether a transaction is open (SQLite ends one by itself on some errors: a full disk, I/O).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// How many prepared statements are cached now (at most ``statementCacheSize``).
    public var cachedStatementCount: Int { statements.count }

    private var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    private func failure(_ status: Int32, _ sql: String) -> SQLiteError {
        .sqlite(code: sqlite3_extended_errcode(handle), message: errorMessage, sql: sql)
    }

    private func prepared(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(SQLiteError)
        -> OpaquePointer
    {
        try preparedWithColumns(sql, arguments).statement
    }

    /// The cached (or newly prepared) statement for `sql` with `arguments` bound, and its column names.
    private func preparedWithColumns(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(SQLiteError)
        -> (statement: OpaquePointer, columns: [String])
    {
        statementUses += 1
        let statement: OpaquePointer
        let columns: [String]
        if let index = statements.index(forKey: sql) {  // one hash of the text, not two
            statements.values[index].lastUse = statementUses
            statement = statements.values[index].statement
            columns = statements.values[index].columns
        } else {
            var made: OpaquePointer?
            let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &made, nil)
            guard status == SQLITE_OK, let made else { throw failure(status, sql) }
            if statements.count >= Self.statementCacheSize,
                let oldest = statements.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                sqlite3_finalize(oldest.value.statement)
                statements[oldest.key] = nil
            }
            columns = (0..<sqlite3_column_count(made)).map { String(cString: sqlite3_column_name(made, $0)) }
            statements[sql] = CachedStatement(statement: made, lastUse: statementUses, columns: columns)
            statement = made
        }
        sqlite3_clear_bindings(statement)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch argument.databaseValue {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let value): status = sqlite3_bind_int64(statement, index, value)
            case .real(let value): status = sqlite3_bind_double(statement, index, value)
            // Lengths past Int32 clamp to 2^31-1, over SQLite's own limit: SQLITE_TOOBIG, never a cut value.
            case .text(let value) where value.isEmpty:
                status = scanpick_sqlite3_bind_text(statement, index, "", 0)
            case .text(let value):
                var text = value
                status = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        scanpick_sqlite3_bind_text(statement, index, $0.baseAddress, Int32(clamping: $0.count))
                    }
                }
            case .blob(let value) where value.isEmpty:
                status = sqlite3_bind_zeroblob(statement, index, 0)  // a NULL pointer would bind NULL
            case .blob(let value):
                status = value.withUnsafeBytes {
                    scanpick_sqlite3_bind_blob(statement, index, $0.baseAddress, Int32(clamping: $0.count))
                }
            }
            guard status == SQLITE_OK else { throw failure(status, sql) }
        }
        return (statement, columns)
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}
