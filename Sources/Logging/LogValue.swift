import Foundation
import JSONText

/// One field of a log line: text (the usual case, written as a string literal or interpolation),
/// a number, a flag, a duration in milliseconds, a point in time, or JSON made elsewhere.
///
///     logger.info("listening", ["address": "\(address)", "port": .number(8080), "tls": .bool(false)])
public enum LogValue: Sendable, ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral
{
    case string(String)
    case number(Int)
    case bool(Bool)
    /// A duration, written in milliseconds with three decimals.
    case milliseconds(Double)
    case time(Date)
    /// Already-encoded JSON (an array or object).
    case raw(String)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Any error's description.
    public static func error(_ error: any Error) -> LogValue { .string(String(describing: error)) }

    func write(_ key: String, to line: inout JSONObjectWriter) {
        switch self {
        case .string(let text): line.add(key, string: text)
        case .number(let number): line.add(key, number: number)
        case .bool(let flag): line.add(key, bool: flag)
        case .milliseconds(let value): line.add(key, milliseconds: value)
        case .time(let date): line.add(key, time: date)
        case .raw(let json): line.add(key, raw: json)
        }
    }
}
