/// A failure of the engine-neutral layer, the same whatever the engine: a row that does not hold
/// what the store asked for, or a schema written by a newer scanpick. Each engine reports its own
/// failures with its own error (`SQLiteError`, `PostgresError`).
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchColumn(String)
    case columnType(column: String, expected: String)
    /// The database has applied migrations this binary does not know (see ``Migration``).
    case schemaTooNew(unknown: [String])

    public var description: String {
        switch self {
        case .noSuchColumn(let column): "no column named '\(column)' in the result"
        case .columnType(let column, let expected): "column '\(column)' does not hold a value of type \(expected)"
        case .schemaTooNew(let unknown):
            "the database has schema changes this scanpick does not know (\(unknown.joined(separator: ", "))): it was written by a newer scanpick; upgrade"
        }
    }
}
