import CPostgres
import Foundation
import Storage

/// One libpq connection. Each distinct statement is prepared once per connection and then executed
/// by name, so a hot request pays for parsing and planning only the first time. Arguments go as text
/// (blobs as binary); results come back typed by their column's type: integers, reals, `bytea` as
/// bytes, everything else as text.
///
/// Not for two threads at once: ``PostgresPool`` hands each connection to one caller at a time.
public final class PostgresConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    private var prepared: [String: String] = [:]

    /// Connects with a `postgres://` URL or a libpq `key=value` connection string.
    public init(_ connectionString: String) throws(PostgresError) {
        guard let handle = PQconnectdb(connectionString) else {
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

    /// Whether the connection can still be used (libpq notices a broken socket on the next call).
    public var isHealthy: Bool { !isBroken && PQstatus(handle) == CONNECTION_OK }
    private var isBroken = false

    /// Runs one or more statements without arguments (schema changes, `BEGIN`, `COMMIT`).
    public func execute(_ sql: String) throws(PostgresError) {
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

    // MARK: Statements

    /// Prepares `sql` on first use and executes it with `arguments`; the result must be cleared.
    private func query(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(PostgresError)
        -> OpaquePointer?
    {
        let name = try preparedName(sql)
        let values = arguments.map(\.databaseValue)
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
            case .integer(let number): Self.appendText(String(number), &buffers, &lengths, &formats)
            case .real(let number): Self.appendText(String(number), &buffers, &lengths, &formats)
            case .text(let text): Self.appendText(text, &buffers, &lengths, &formats)
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
        let result = buffers.withUnsafeBufferPointer { pointers in
            pointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constPointers in
                PQexecPrepared(
                    handle, name, Int32(values.count), constPointers.baseAddress, lengths, formats, 0)
            }
        }
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    private func preparedName(_ sql: String) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count + 1)"
        let result = PQprepare(handle, name, Placeholders.postgres(sql), 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

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

    // MARK: Values

    private static func appendText(
        _ text: String, _ buffers: inout [UnsafeMutablePointer<CChar>?], _ lengths: inout [Int32],
        _ formats: inout [Int32]
    ) {
        buffers.append(strdup(text))
        lengths.append(0)
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
