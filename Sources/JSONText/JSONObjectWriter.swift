import Foundation
import Timestamps

/// Writes one JSON object with its keys in the order they are added, as `scanpick decode --json`
/// and the log lines promise (`file`, `symbols`, `ms`, …). Foundation's encoder does not keep key
/// order, and this is cheaper on hot paths such as a request log: it appends bytes, never a string.
///
///     var line = JSONObjectWriter()
///     line.add("status", number: 200)
///     print(line.finished())  // {"status":200}
public struct JSONObjectWriter {
    private var bytes: [UInt8]
    private var isFirst = true

    public init() {
        bytes = []
        bytes.reserveCapacity(256)
        bytes.append(0x7B)  // {
    }

    public mutating func add(_ key: String, string value: String) {
        addKey(key)
        Self.appendQuoted(value, to: &bytes)
    }

    public mutating func add(_ key: String, number value: Int) {
        addKey(key)
        Self.appendDecimal(value, to: &bytes)
    }

    public mutating func add(_ key: String, bool value: Bool) {
        addKey(key)
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    /// Adds a duration in milliseconds with three decimals (`12.346`).
    public mutating func add(_ key: String, milliseconds value: Double) {
        addKey(key)
        // By integer arithmetic (String(format:) is slow on a hot path); a value no duration has
        // (not a number, past 2^53 thousandths) is written as 0 or clamped.
        let scaled = (value * 1000).rounded()
        let thousandths = scaled.isNaN ? 0 : Int(max(-9e15, min(9e15, scaled)))
        if thousandths < 0 { bytes.append(0x2D) }
        Self.appendDecimal(thousandths.magnitude / 1000, to: &bytes)
        bytes.append(0x2E)  // .
        let fraction = thousandths.magnitude % 1000
        bytes.append(0x30 + UInt8(fraction / 100))
        bytes.append(0x30 + UInt8(fraction / 10 % 10))
        bytes.append(0x30 + UInt8(fraction % 10))
    }

    /// Adds a point in time as its ``Timestamp`` text (`"2026-11-30T10:00:00.123Z"`).
    public mutating func add(_ key: String, time value: Date) {
        addKey(key)
        bytes.append(0x22)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Timestamp.maxTextLength))
        let written = bytes.withUnsafeMutableBufferPointer {
            Timestamp.write(value, into: UnsafeMutableBufferPointer(rebasing: $0[start...]))
        }
        bytes.removeLast(Timestamp.maxTextLength - written)
        bytes.append(0x22)
    }

    /// Adds `value` under `key` if there is one (an absent optional is left out, as Foundation's
    /// encoder leaves it).
    public mutating func add(_ key: String, string value: String?) {
        if let value { add(key, string: value) }
    }

    public mutating func add(_ key: String, number value: Int?) {
        if let value { add(key, number: value) }
    }

    /// Adds an already-encoded JSON value (an array or object made by another writer).
    public mutating func add(_ key: String, raw json: String) {
        addKey(key)
        bytes.append(contentsOf: json.utf8)
    }

    /// Adds an already-encoded JSON value given as its bytes.
    public mutating func add(_ key: String, raw json: [UInt8]) {
        addKey(key)
        bytes.append(contentsOf: json)
    }

    /// The object's text.
    public func finished() -> String { String(decoding: finishedBytes(), as: UTF8.self) }

    /// The object's UTF-8 bytes.
    public func finishedBytes() -> [UInt8] {
        var done = bytes
        done.append(0x7D)  // }
        return done
    }

    private mutating func addKey(_ key: String) {
        if !isFirst { bytes.append(0x2C) }
        isFirst = false
        Self.appendQuoted(key, to: &bytes)
        bytes.append(0x3A)
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `value` in decimal.
    static func appendDecimal<Number: BinaryInteger>(_ value: Number, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(0x2D) }
        var rest = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 24 digits, the last first
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = 0x30 + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 && count < buffer.count
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Appends `value` as a JSON string literal to UTF-8 `bytes`: quotes, backslashes and control
    /// characters escaped.
    public static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(0x22)
        // Most values need no escaping: append them whole.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            bytes.append(contentsOf: value.utf8)
            bytes.append(0x22)
            return
        }
        for byte in value.utf8 {
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])  // \"
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])  // \\
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])  // \n
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])  // \r
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])  // \t
            case 0x08: bytes.append(contentsOf: [0x5C, 0x62])  // \b
            case 0x0C: bytes.append(contentsOf: [0x5C, 0x66])  // \f
            case ..<0x20:  // \u00XX
                bytes.append(contentsOf: [
                    0x5C, 0x75, 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}

/// A value that writes its own JSON, byte for byte what `JSONEncoder` with sorted keys and
/// unescaped slashes would write, for answers encoded on a hot path.
public protocol JSONBytesEncodable: Encodable {
    var jsonBytes: [UInt8] { get }
}

extension Array: JSONBytesEncodable where Element: JSONBytesEncodable {
    /// The elements' JSON in a JSON array.
    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = [0x5B]  // [
        for (index, element) in enumerated() {
            if index > 0 { bytes.append(0x2C) }
            bytes.append(contentsOf: element.jsonBytes)
        }
        bytes.append(0x5D)  // ]
        return bytes
    }
}
