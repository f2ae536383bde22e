/// A JSON object read only when it is written plainly: ASCII, one level, at most ``maxFields``
/// fields, each value a string without escapes, a whole number of at most 18 digits, or `null`, and
/// no key twice. Anything else (an escape, a nested value, a fraction, a repeated key, trailing
/// bytes, more fields: each lookup scans them all) reads as nil, and the caller
/// falls back to `JSONDecoder`, which then also words the error. It is what stations send on every
/// scan and tap, read here in a fraction of `JSONDecoder`'s time; see ``FlatJSONDecodable``.
///
///     let object = FlatJSONObject(Array(#"{"qty":2,"workerId":"w1"}"#.utf8))
///     object?["qty"]  // .integer(2)
public struct FlatJSONObject: Sendable {
    /// One field's value.
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case null
    }

    /// The fields in the order they came; few, so looked up by scanning.
    public private(set) var fields: [(key: String, value: Value)] = []

    /// The most fields a plain object has (the requests read this way have at most six).
    public static let maxFields = 16

    /// Reads `bytes`; nil unless they are a plain object as described above.
    public init?(_ bytes: [UInt8]) {
        var reader = Reader(bytes: bytes)
        guard reader.skipSpace(), reader.take(UInt8(ascii: "{")), reader.skipSpace() else { return nil }
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                guard reader.skipSpace(), let key = reader.string(), reader.skipSpace(),
                    reader.take(UInt8(ascii: ":")), reader.skipSpace(), let value = reader.value(), reader.skipSpace(),
                    fields.count < Self.maxFields, !fields.contains(where: { $0.key == key })
                else { return nil }
                fields.append((key, value))
            } while reader.take(UInt8(ascii: ","))
            guard reader.take(UInt8(ascii: "}")) else { return nil }
        }
        guard reader.skipSpace(), reader.atEnd else { return nil }
    }

    /// The value of `key`, or nil when the object has no such field.
    public subscript(_ key: String) -> Value? {
        fields.first(where: { $0.key == key })?.value
    }

    /// Whether every field's key is one of `keys` (a decoder that ignored the others could read a
    /// body the full decoder words differently; the plain path takes none it does not know).
    public func hasOnly(_ keys: [String]) -> Bool {
        fields.allSatisfy { keys.contains($0.key) }
    }

    /// A string field.
    public func string(_ key: String) -> String? {
        guard case .string(let value)? = self[key] else { return nil }
        return value
    }

    /// A whole-number field.
    public func integer(_ key: String) -> Int? {
        guard case .integer(let value)? = self[key] else { return nil }
        return value
    }

    /// An optional string field: `.some(nil)` when absent or null, nil when it holds anything else.
    public func optionalString(_ key: String) -> String?? {
        switch self[key] {
        case nil, .null?: .some(nil)
        case .string(let value)?: .some(value)
        case .integer?: nil
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Skips JSON whitespace; always true, so that it chains in a `guard`.
        mutating func skipSpace() -> Bool {
            while index < bytes.count,
                bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
            {
                index += 1
            }
            return true
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string of printable ASCII other than `"` and `\`.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                guard (0x20...0x7E).contains(bytes[index]), bytes[index] != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func value() -> Value? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "n"):
                guard bytes[index...].starts(with: "null".utf8) else { return nil }
                index += 4
                return .null
            default: return integer().map(Value.integer)
            }
        }

        /// `-?(0|[1-9][0-9]*)` of at most 18 digits (never past `Int`); what may follow is the caller's to check.
        mutating func integer() -> Int? {
            let negative = take(UInt8(ascii: "-"))
            let start = index
            var magnitude = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                guard index - start < 18 else { return nil }  // a 19th digit could pass Int.max
                magnitude = magnitude * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let digits = index - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            return negative ? -magnitude : magnitude
        }
    }
}

/// A request body that can read itself from a ``FlatJSONObject``: the exact value `JSONDecoder`
/// would decode, or nil for anything the plain path does not take (then `JSONDecoder` reads it and
/// words any error). A test checks both agree on every body it tries.
public protocol FlatJSONDecodable: Decodable {
    init?(flat object: FlatJSONObject)
}

extension SubmitScanRequest: FlatJSONDecodable {
    public init?(flat object: FlatJSONObject) {
        guard object.hasOnly(["pickTaskId", "barcode", "scannedAt", "idempotencyKey", "workerId"]),
            let pickTaskId = object.string("pickTaskId"), let barcode = object.string("barcode"),
            let scannedAt = object.string("scannedAt"), let idempotencyKey = object.optionalString("idempotencyKey"),
            let workerId = object.string("workerId")
        else { return nil }
        self.init(
            pickTaskId: pickTaskId, barcode: barcode, scannedAt: scannedAt, idempotencyKey: idempotencyKey,
            workerId: workerId)
    }
}

extension PickRequest: FlatJSONDecodable {
    public init?(flat object: FlatJSONObject) {
        guard object.hasOnly(["pickTaskId", "qty", "idempotencyKey", "workerId", "at"]),
            let pickTaskId = object.string("pickTaskId"), let qty = object.integer("qty"),
            let idempotencyKey = object.optionalString("idempotencyKey"), let workerId = object.string("workerId"),
            let at = object.string("at")
        else { return nil }
        self.init(pickTaskId: pickTaskId, qty: qty, idempotencyKey: idempotencyKey, workerId: workerId, at: at)
    }
}

extension SetQtyRequest: FlatJSONDecodable {
    public init?(flat object: FlatJSONObject) {
        guard object.hasOnly(["pickTaskId", "from", "to", "idempotencyKey", "workerId", "at"]),
            let pickTaskId = object.string("pickTaskId"), let from = object.integer("from"),
            let to = object.integer("to"), let idempotencyKey = object.optionalString("idempotencyKey"),
            let workerId = object.string("workerId"), let at = object.string("at")
        else { return nil }
        self.init(
            pickTaskId: pickTaskId, from: from, to: to, idempotencyKey: idempotencyKey, workerId: workerId, at: at)
    }
}

extension ShortPickRequest: FlatJSONDecodable {
    public init?(flat object: FlatJSONObject) {
        guard object.hasOnly(["pickTaskId", "qty", "reason", "idempotencyKey", "workerId", "at"]),
            let pickTaskId = object.string("pickTaskId"), let qty = object.integer("qty"),
            let reason = object.string("reason"), let idempotencyKey = object.optionalString("idempotencyKey"),
            let workerId = object.string("workerId"), let at = object.string("at")
        else { return nil }
        self.init(
            pickTaskId: pickTaskId, qty: qty, reason: reason, idempotencyKey: idempotencyKey, workerId: workerId, at: at
        )
    }
}
