/// A failure reported by SQLite, with its extended result code, its message and the statement that
/// failed: the one error the SQLite engine throws (a row that does not read as asked is a
/// ``StorageError``, the same on every engine).
public enum SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    case sqlite(code: Int32, message: String, sql: String?)
    /// SQLite rolled back the open transaction by itself (after a full disk or an I/O error).
    case rolledBack

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
        }
    }
}
