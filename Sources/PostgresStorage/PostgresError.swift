/// A failure reported by PostgreSQL or libpq: the server's SQLSTATE when it sent one, its message,
/// and whether the connection itself is gone (the server restarted, the network broke), in which case
/// the connection is thrown away and the request may be retried.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505` unique violation, `40001` serialization failure, …).
    public var sqlState: String?
    public var message: String
    /// The connection is unusable: nothing more can run on it.
    public var isConnectionFailure: Bool

    public init(sqlState: String?, message: String, isConnectionFailure: Bool) {
        self.sqlState = sqlState
        self.message = message
        self.isConnectionFailure = isConnectionFailure
    }

    /// A UNIQUE constraint refused the change.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// The transaction lost a race (serialization failure or deadlock) and may simply be run again.
    public var isRetryableConflict: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The database is unavailable for now: a broken connection, or a server shutting down or starting.
    public var isUnavailable: Bool {
        isConnectionFailure || sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false
    }

    /// The server's disk is full (SQLSTATE 53100 `disk_full`).
    public var isDiskFull: Bool { sqlState == "53100" }

    /// The server is out of resources (class 53: memory, connections, disk) or failed to read or
    /// write its files (58030 `io_error`).
    public var isStorageFailure: Bool { sqlState.map { $0.hasPrefix("53") || $0 == "58030" } ?? false }

    public var description: String {
        "PostgreSQL" + (sqlState.map { " error \($0)" } ?? "") + ": " + message
    }
}
