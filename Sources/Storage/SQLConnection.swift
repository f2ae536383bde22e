/// The statements a store runs inside one transaction, whatever the engine: a SQLite `Database` or
/// a `PostgresConnection`. SQL uses `?` placeholders (or `?N` for the N-th argument), which each
/// engine binds its own way, so a store's queries are written once.
///
///     let task = try connection.row("SELECT * FROM pick_tasks WHERE org = ? AND id = ?", [org, id])
public protocol SQLConnection {
    /// Runs a statement that returns no rows; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> Int
    /// Runs a statement whose result is not needed now (a write). An engine may hold it and send it
    /// with the next statement in one round trip (PostgreSQL); its error then surfaces there, at the
    /// latest at commit. SQLite runs it at once.
    func runLater(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws
    /// Runs a query and returns every row.
    func rows(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> [Row]
    /// Runs a query and returns its first row, if any.
    func row(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> Row?
}
