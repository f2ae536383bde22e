import Foundation

/// Writes one JSON object with its keys in the order they are added, as `scanpick decode --json`
/// and the log lines promise (`file`, `symbols`, `ms`, …). Foundation's encoder does not keep key
/// order, and this is cheaper on hot paths such as a request log.
///
///     var line = JSONObjectWriter()
///     line.add("status", number: 200)
///     print(line.finished())  // {"status":200}
public struct JSONObjectWriter {
    private var text = "{"
    private var isFirst = true

    public init() {}

    public mutating func add(_ key: String, string value: String) {
        addKey(key)
        Self.appendQuoted(value, to: &text)
    }

    public mutating func add(_ key: String, number value: Int) {
        addKey(key)
        text += String(value)
    }

    public mutating func add(_ key: String, bool value: Bool) {
        addKey(key)
        text += value ? "true" : "false"
    }

    public mutating func add(_ key: String, milliseconds value: Double) {
        addKey(key)
        // Three decimals by integer arithmetic (String(format:) is slow on a hot path).
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(abs(thousandths % 1000))
        text += String(thousandths / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
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
        text += json
    }

    public func finished() -> String { text + "}" }

    private mutating func addKey(_ key: String) {
        if !isFirst { text += "," }
        isFirst = false
        Self.appendQuoted(key, to: &text)
        text += ":"
    }

    /// Appends `value` as a JSON string literal: quotes, backslashes and control characters escaped.
    public static func appendQuoted(_ value: String, to text: inout String) {
        text += "\""
        // Most values need no escaping: append them whole.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
            text += value
            text += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{8}": text += "\\b"
            case "\u{C}": text += "\\f"
            case _ where scalar.value < 0x20:
                text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

/// A value that writes its own JSON, byte for byte what `JSONEncoder` with sorted keys and
/// unescaped slashes would write, for answers encoded on a hot path.
public protocol JSONBytesEncodable: Encodable {
    var jsonBytes: [UInt8] { get }
}
