import Foundation
import Timestamps

/// One result row, read by column name. Accessors throw rather than crash when a column is missing
/// or holds another type: the database is outside data.
///
///     let qty = try row.int("qty_picked")
public struct Row: Sendable {
    public let columns: [String]
    public let values: [DatabaseValue]

    /// A row whose `values[i]` is the value of `columns[i]`.
    public init(columns: [String], values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(_ column: String) -> DatabaseValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    public func int(_ column: String) throws(StorageError) -> Int {
        guard case .integer(let value) = try value(column) else {
            throw .columnType(column: column, expected: "integer")
        }
        return Int(value)
    }

    public func optionalInt(_ column: String) throws(StorageError) -> Int? {
        if case .null = try value(column) { return nil }
        return try int(column)
    }

    public func string(_ column: String) throws(StorageError) -> String {
        guard case .text(let value) = try value(column) else { throw .columnType(column: column, expected: "text") }
        return value
    }

    public func optionalString(_ column: String) throws(StorageError) -> String? {
        if case .null = try value(column) { return nil }
        return try string(column)
    }

    /// A time stored as its ``Timestamp`` text.
    public func date(_ column: String) throws(StorageError) -> Date {
        guard let date = Timestamp.date(try string(column)) else {
            throw .columnType(column: column, expected: "timestamp")
        }
        return date
    }

    public func optionalDate(_ column: String) throws(StorageError) -> Date? {
        if case .null = try value(column) { return nil }
        return try date(column)
    }

    public func double(_ column: String) throws(StorageError) -> Double {
        switch try value(column) {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: throw .columnType(column: column, expected: "real")
        }
    }

    public func bytes(_ column: String) throws(StorageError) -> [UInt8] {
        switch try value(column) {
        case .blob(let value): return value
        case .text(let value): return Array(value.utf8)
        case .null: return []
        default: throw .columnType(column: column, expected: "blob")
        }
    }

    private func value(_ column: String) throws(StorageError) -> DatabaseValue {
        guard let value = self[column] else { throw .noSuchColumn(column) }
        return value
    }
}
