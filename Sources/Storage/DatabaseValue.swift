import Foundation
import Timestamps

/// A value as a database stores it (SQLite's storage classes; PostgreSQL's types map onto them). Swift values become one through ``DatabaseValueConvertible``.
public enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type that can be bound to a statement parameter.
public protocol DatabaseValueConvertible: Sendable {
    var databaseValue: DatabaseValue { get }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
}

extension [UInt8]: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}

/// A point in time is stored as its ``Timestamp`` text (`2026-11-30T10:00:00.123Z`), in every table
/// and on every engine: fixed width, so comparing stored times as text compares them as times.
extension Date: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(Timestamp.iso8601(self)) }
}
