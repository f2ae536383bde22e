import CPostgres
import Foundation
import Storage

/// One libpq connection. Each distinct statement is prepared once per connection and then executed
/// by name, so a hot request pays for parsing and planning only the first time; at most
/// ``preparedStatementLimit`` stay prepared (the least recently used is deallocated). Arguments go
/// as text (blobs as binary); a text holding NUL, which PostgreSQL cannot store and libpq would cut
/// short, is refused. Results come back typed by their column's type: integers, reals, `bytea` as
/// bytes, everything else as text.
///
/// Not for two threads at once: ``PostgresPool`` hands each connection to one caller at a time.
public final class PostgresConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    private var prepared: [String: PreparedStatement] = [:]
    private var statementsMade = 0
    private var statementUses = 0
    /// Prepared statements kept at most per connection.
    public static let preparedStatementLimit = 64

    private struct PreparedStatement {
        var name: String
        var lastUse: Int
    }
    /// Statements queued by ``runLater(_:_:)``, sent with the next one that needs an answer.
    private var deferred: [Statement] = []
    /// Set when libpq reported a failure of its own: the connection is not to be reused.
    private var isBroken = false

    /// Connects with a `postgres://` URL or a libpq `key=value` connection string. Unless the string
    /// says otherwise, connecting gives up after 5 s and a TCP connection whose data goes unanswered
    /// for 10 s counts as broken, so a database gone from the network gives errors, not hung requests.
    public init(_ connectionString: String) throws(PostgresError) {
        guard let handle = Self.connect(connectionString) else {
            throw PostgresError(
                sqlState: nil, message: "libpq could not allocate a connection", isConnectionFailure: true)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError(sqlState: nil, message: message, isConnectionFailure: true)
        }
        // Only now: a class whose stored properties are all set runs deinit (PQfinish) if init throws.
        self.handle = handle
        _ = PQsetClientEncoding(handle, "UTF8")
        // libpq prints server notices ("relation … already exists, skipping") to standard error by
        // default, where they would break the server's one-JSON-object-per-line log.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// The defaults, then the caller's string: libpq lets keywords after `dbname` (expanded from the
    /// connection string) override those before it.
    static let defaults = [("connect_timeout", "5"), ("tcp_user_timeout", "10000")]

    private static func connect(_ connectionString: String) -> OpaquePointer? {
        let pairs = defaults + [("dbname", connectionString)]
        var keywords = pairs.map { strdup($0.0) }
        var values = pairs.map { strdup($0.1) }
        keywords.append(nil)
        values.append(nil)
        defer { (keywords + values).forEach { free($0) } }
        return keywords.withUnsafeBufferPointer { keywordPointers in
            values.withUnsafeBufferPointer { valuePointers in
                keywordPointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { k in
                    valuePointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { v in
                        PQconnectdbParams(k.baseAddress, v.baseAddress, 1)
                    }
                }
            }
        }
    }

    /// The value in effect for a connection setting (`connect_timeout`, `dbname`, …), if any.
    public func setting(_ keyword: String) -> String? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    /// Whether the connection can still be used (libpq notices a broken socket on the next call).
    public var isHealthy: Bool { !isBroken && PQstatus(handle) == CONNECTION_OK }

    /// Runs one or more statements without arguments (schema changes); sends deferred ones first.
    public func execute(_ sql: String) throws(PostgresError) {
        if !deferred.isEmpty { PQclear(try send(takeDeferred())) }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    @discardableResult
    public func run(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(PostgresError) -> Int {
        let result = try query(sql, arguments)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Queues a statement whose result nobody needs yet (`BEGIN`, a write): it goes to the server in
    /// one round trip with the next statement that needs an answer, or with `COMMIT`, and its error,
    /// if any, is thrown there. Order is kept.
    public func runLater(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(PostgresError) {
        deferred.append(Statement(name: try preparedName(sql), values: try Self.checked(arguments)))
        // A big ERP feed is sent in slices rather than held whole in memory.
        if deferred.count >= Self.longestPipeline { PQclear(try send(takeDeferred())) }
    }

    /// The most statements held back before they are sent anyway.
    static let longestPipeline = 64

    /// Forgets queued statements (the transaction is being abandoned).
    public func discardDeferred() { deferred.removeAll() }

    public func rows(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(PostgresError) -> [Row] {
        let result = try query(sql, arguments)
        defer { PQclear(result) }
        let columnCount = PQnfields(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        let types = (0..<columnCount).map { PQftype(result, $0) }
        return (0..<PQntuples(result)).map { row in
            Row(columns: columns, values: (0..<columnCount).map { Self.value(result, row, $0, type: types[Int($0)]) })
        }
    }

    public func row(_ sql: String, _ arguments: [any DatabaseValueConvertible] = []) throws(PostgresError) -> Row? {
        try rows(sql, arguments).first
    }

    /// A prepared statement and its arguments.
    struct Statement {
        var name: String
        var values: [DatabaseValue]
    }

    /// Prepares `sql` on first use and executes it with `arguments`, together with any deferred
    /// statements; the result must be cleared.
    private func query(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(PostgresError)
        -> OpaquePointer?
    {
        let statement = Statement(name: try preparedName(sql), values: try Self.checked(arguments))
        guard deferred.isEmpty else { return try send(takeDeferred() + [statement]) }
        let result = Self.withParameters(statement.values) { count, values, lengths, formats in
            PQexecPrepared(handle, statement.name, count, values, lengths, formats, 0)
        }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    private func takeDeferred() -> [Statement] {
        defer { deferred.removeAll() }
        return deferred
    }

    /// Sends `statements` in one round trip (libpq's pipeline mode) and returns the last one's
    /// result (to be cleared); throws the first error. After an error the server skips the rest.
    private func send(_ statements: [Statement]) throws(PostgresError) -> OpaquePointer? {
        guard PQenterPipelineMode(handle) == 1 else { throw failure("cannot enter pipeline mode") }
        defer { _ = PQexitPipelineMode(handle) }
        for statement in statements {
            let sent = Self.withParameters(statement.values) { count, values, lengths, formats in
                PQsendQueryPrepared(handle, statement.name, count, values, lengths, formats, 0)
            }
            guard sent == 1 else { throw failure("could not send a statement") }
        }
        guard PQpipelineSync(handle) == 1 else { throw failure("could not send the pipeline") }
        var firstError: PostgresError?
        var last: OpaquePointer?
        for index in statements.indices {
            let result = PQgetResult(handle)
            while let extra = PQgetResult(handle) { PQclear(extra) }  // up to the NULL ending this statement
            if firstError != nil {
                PQclear(result)  // skipped by the server after the error (PGRES_PIPELINE_ABORTED)
                continue
            }
            do {
                try check(result)
            } catch {
                firstError = error
                PQclear(result)
                continue
            }
            if index == statements.count - 1 { last = result } else { PQclear(result) }
        }
        if let sync = PQgetResult(handle) { PQclear(sync) }  // PGRES_PIPELINE_SYNC
        if let firstError {
            PQclear(last)
            throw firstError
        }
        return last
    }

    /// A libpq-side failure: the connection is not to be trusted any more.
    private func failure(_ what: String) -> PostgresError {
        isBroken = true
        return PostgresError(
            sqlState: nil, message: what + ": " + Self.trimmed(PQerrorMessage(handle)), isConnectionFailure: true)
    }

    /// Calls `body` with `values` as libpq parameters: text, or binary for blobs.
    private static func withParameters<R>(
        _ values: [DatabaseValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, [Int32], [Int32]) -> R
    ) -> R {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { buffers.forEach { free($0) } }
        for value in values {
            switch value {
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let number): appendText(String(number), &buffers, &lengths, &formats)
            case .real(let number): appendText(String(number), &buffers, &lengths, &formats)
            case .text(let text): appendText(text, &buffers, &lengths, &formats)
            case .blob(let bytes):
                let buffer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { source in
                    if let base = source.baseAddress { memcpy(buffer, base, bytes.count) }
                }
                buffers.append(buffer)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        return buffers.withUnsafeBufferPointer { pointers in
            pointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constPointers in
                body(Int32(values.count), constPointers.baseAddress, lengths, formats)
            }
        }
    }

    private func preparedName(_ sql: String) throws(PostgresError) -> String {
        statementUses += 1
        if let known = prepared[sql] {
            prepared[sql]?.lastUse = statementUses
            return known.name
        }
        if prepared.count >= Self.preparedStatementLimit { try deallocateLeastRecentlyUsed() }
        statementsMade += 1
        let name = "s\(statementsMade)"
        let result = PQprepare(handle, name, Placeholders.postgres(sql), 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = PreparedStatement(name: name, lastUse: statementUses)
        return name
    }

    /// Frees the statement used longest ago (after sending the deferred ones, which may name it).
    private func deallocateLeastRecentlyUsed() throws(PostgresError) {
        guard let oldest = prepared.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
        if !deferred.isEmpty { PQclear(try send(takeDeferred())) }
        let result = PQexec(handle, "DEALLOCATE \(oldest.value.name)")
        defer { PQclear(result) }
        try check(result)
        prepared[oldest.key] = nil
    }

    /// How many statements are prepared on this connection now.
    public var preparedStatementCount: Int { prepared.count }

    private func check(_ result: OpaquePointer?, sql: String? = nil) throws(PostgresError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK, status != PGRES_EMPTY_QUERY else { return }
        let sqlState = result.flatMap { PQresultErrorField($0, scanpick_pg_diag_sqlstate) }.map { String(cString: $0) }
        var message = result.map { Self.trimmed(PQresultErrorMessage($0)) } ?? ""
        if message.isEmpty { message = Self.trimmed(PQerrorMessage(handle)) }
        if let sql { message += " (in: \(sql.prefix(120)))" }
        // An error without SQLSTATE came from libpq itself, not the server: the connection broke
        // (libpq may not have marked it bad yet).
        if sqlState == nil { isBroken = true }
        throw PostgresError(sqlState: sqlState, message: message, isConnectionFailure: !isHealthy)
    }

    /// The arguments as values, refusing text that holds NUL: PostgreSQL text cannot store it, and
    /// libpq sends text parameters as C strings, which would end the value there.
    private static func checked(_ arguments: [any DatabaseValueConvertible]) throws(PostgresError) -> [DatabaseValue] {
        let values = arguments.map(\.databaseValue)
        for value in values {
            if case .text(let text) = value, text.utf8.contains(0) {
                throw PostgresError(
                    sqlState: "22021", message: "a text value holds a NUL character, which PostgreSQL cannot store",
                    isConnectionFailure: false)
            }
        }
        return values
    }

    private static func appendText(
        _ text: String, _ buffers: inout [UnsafeMutablePointer<CChar>?], _ lengths: inout [Int32],
        _ formats: inout [Int32]
    ) {
        buffers.append(strdup(text))
        lengths.append(Int32(clamping: text.utf8.count))  // libpq reads text parameters up to their NUL
        formats.append(0)
    }

    /// Type OIDs from `pg_type`: bool, bytea, int8, int2, int4, oid, float4, float8, numeric.
    private enum TypeOID {
        static let bool: Oid = 16
        static let bytea: Oid = 17
        static let integers: Set<Oid> = [20, 21, 23, 26]
        static let reals: Set<Oid> = [700, 701, 1700]
    }

    private static func value(_ result: OpaquePointer?, _ row: Int32, _ column: Int32, type: Oid) -> DatabaseValue {
        if PQgetisnull(result, row, column) != 0 { return .null }
        let text = String(cString: PQgetvalue(result, row, column))
        switch type {
        case TypeOID.bool: return .integer(text == "t" ? 1 : 0)
        case TypeOID.bytea: return .blob(hexBytes(text))
        case _ where TypeOID.integers.contains(type): return Int64(text).map(DatabaseValue.integer) ?? .text(text)
        case _ where TypeOID.reals.contains(type):
            if let whole = Int64(text) { return .integer(whole) }
            return Double(text).map(DatabaseValue.real) ?? .text(text)
        default: return .text(text)
        }
    }

    /// `bytea` in text form is `\x` and two hex digits per byte.
    private static func hexBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.dropFirst(2))
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: 0
            }
        }
        return stride(from: 0, to: digits.count - 1, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}
