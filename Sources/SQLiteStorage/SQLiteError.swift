/// A failure reported by SQLite, with its extended result code, its message and the statement that
/// failed: the one error the SQLite engine throws (a row that does not read as asked is a
/// ``StorageError``, the same on every engine).
public enum SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    case sqlite(code: Int32, message: String, sql: String?)
    /// SQLite rolled back the open transaction by itself (after a full disk or an I/O error).
    case rolledBack
    /// The database file at this path is no longer the one the connection writes to (it was deleted,
    /// or another file was put in its place, or its -wal was), for this reason: a commit would go
    /// where nothing can find it, so none is made.
    case fileGone(path: String, reason: String)

    /// SQLite's primary result code for a failed constraint (UNIQUE, CHECK, …).
    static let constraintCode: Int32 = 19
    /// SQLite's primary result codes for a damaged file (SQLITE_CORRUPT) or one that is not a
    /// database (SQLITE_NOTADB).
    static let damageCodes: Set<Int32> = [11, 26]

    /// Whether a UNIQUE or other constraint refused the change.
    public var isConstraintViolation: Bool {
        if case .sqlite(let code, _, _) = self { return code & 0xFF == Self.constraintCode }
        return false
    }

    /// Whether the disk (or the file's size limit) is full: SQLITE_FULL.
    public var isFull: Bool {
        if case .sqlite(let code, _, _) = self { return code & 0xFF == 13 }
        return false
    }

    /// Whether the file could not be written or read as storage, not as SQL: an I/O error
    /// (SQLITE_IOERR), a file that cannot be opened (SQLITE_CANTOPEN) or has become read-only
    /// (SQLITE_READONLY), damage, or SQLite's own rollback after one of those.
    public var isStorageFailure: Bool {
        switch self {
        case .sqlite(let code, _, _): [8, 10, 14].contains(code & 0xFF) || Self.damageCodes.contains(code & 0xFF)
        case .rolledBack, .fileGone: true
        }
    }

    /// Whether SQLite found the file damaged or not a database at all.
    public var isDamage: Bool {
        if case .sqlite(let code, _, _) = self { return Self.damageCodes.contains(code & 0xFF) }
        return false
    }

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code): \(message)" + (sql.map { " (in: \($0.prefix(120)))" } ?? "")
        case .rolledBack: "SQLite rolled the transaction back (the disk may be full or failing); nothing of it was kept"
        case .fileGone(let path, let reason):
            "the database file \(path) is not the one open any more: \(reason); nothing more is written to it"
        }
    }
}
