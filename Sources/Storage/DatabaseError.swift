/// A failure reported by SQLite or while reading its results, with SQLite's code and message and the
/// statement that failed.
public enum DatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
    case sqlite(code: Int32, message: String, sql: String?)
    case noSuchColumn(String)
    case columnType(column: String, expected: String)
    case schemaTooNew(unknown: [String])
    /// SQLite rolled back the open transaction by itself (after a full disk or an I/O error).
    case rolledBack

    /// SQLite's primary result code for a failed constraint (UNIQUE, CHECK, …).
    static let constraintCode: Int32 = 19
    /// SQLite's result codes for a database another connection holds locked.
    static let busyCodes: Set<Int32> = [5, 6]

    /// Whether a UNIQUE or other constraint refused the change.
    public var isConstraintViolation: Bool {
        if case .sqlite(let code, _, _) = self { return code & 0xFF == Self.constraintCode }
        return false
    }

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code): \(message)" + (sql.map { " (in: \($0.prefix(120)))" } ?? "")
        case .noSuchColumn(let column): "no column named '\(column)' in the result"
        case .columnType(let column, let expected): "column '\(column)' does not hold a value of type \(expected)"
        case .rolledBack: "SQLite rolled the transaction back (the disk may be full or failing); nothing of it was kept"
        case .schemaTooNew(let unknown):
            "the database has schema changes this scanpick does not know (\(unknown.joined(separator: ", "))): it was written by a newer scanpick; upgrade"
        }
    }
}
