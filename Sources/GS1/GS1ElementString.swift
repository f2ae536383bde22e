import Foundation

/// A GS1 element string split into its elements (AI and data), each checked against its AI: length,
/// characters, check digit, date. Read from a reader's payload (bare, with GS after variable-length
/// data, as ZBar and zxing-cpp write it), from a scanner that sends a symbology identifier (`]C1`,
/// `]e0`, `]d2`, `]Q3`, `]z1`) or FNC1 as GS, and from the human-readable form with brackets.
///
///     let data = try GS1ElementString(parsing: "0109501101530003172601311010AB-12")
///     data.gtin == "09501101530003"; data.lot == "AB-12"; data.expiry?.description == "2026-01-31"
public struct GS1ElementString: Sendable, Equatable {
    /// One AI and its data, as printed, and the date it names when the AI holds one (its century
    /// placed when parsed).
    public struct Element: Sendable, Equatable {
        public let ai: ApplicationIdentifier
        public let value: String
        public let date: GS1Date?
    }

    public let elements: [Element]

    /// The longest text parsed (an element string holds at most 48 data characters in GS1-128;
    /// Data Matrix and QR hold more, but no label needs 512).
    public static let maxLength = 512

    /// Parses `text`. `referenceYear` places two-digit years (default: this year).
    public init(parsing text: String, referenceYear: Int? = nil) throws(GS1Error) {
        let year = referenceYear ?? Calendar(identifier: .gregorian).component(.year, from: Date())
        guard text.utf8.count <= Self.maxLength else { throw .tooLong(Self.maxLength) }
        if text.hasPrefix("(") {
            elements = try Self.parseBracketed(text, referenceYear: year)
        } else {
            elements = try Self.parseBare(Self.strippingPrefix(text), referenceYear: year)
        }
        guard !elements.isEmpty else { throw .empty }
        try Self.checkCombinations(elements.map(\.ai.code))
    }

    /// The rules on which AIs may stand together that the checks here rely on: each AI once (a
    /// second (10) or (17) would otherwise hide behind the first), (01) and (02) never together,
    /// and a count (37) only with the (02) of the items it counts.
    private static func checkCombinations(_ codes: [String]) throws(GS1Error) {
        var seen: Set<String> = []
        for code in codes where !seen.insert(code).inserted { throw .repeatedAI(code) }
        if seen.contains("01"), seen.contains("02") { throw .invalidPair("(01) and (02) never stand together") }
        if seen.contains("37"), !seen.contains("02") { throw .invalidPair("a count (37) needs the (02) it counts") }
    }

    /// The symbology identifiers that say a GS1 element string follows.
    static let gs1SymbologyIdentifiers = ["]C1", "]e0", "]d2", "]Q3", "]J1", "]z1"]

    private static func strippingPrefix(_ text: String) -> Substring {
        var rest = Substring(text)
        if let prefix = gs1SymbologyIdentifiers.first(where: { rest.hasPrefix($0) }) {
            rest = rest.dropFirst(prefix.count)
        }
        while rest.first == "\u{1D}" { rest = rest.dropFirst() }
        return rest
    }

    private static func parseBare(_ text: Substring, referenceYear: Int) throws(GS1Error) -> [Element] {
        var elements: [Element] = []
        var rest = text
        while !rest.isEmpty {
            let offset = text.distance(from: text.startIndex, to: rest.startIndex)
            guard let ai = ApplicationIdentifier.at(rest) else {
                throw .unknownAI(String(rest.prefix(4)), at: offset)
            }
            rest = rest.dropFirst(ai.code.count)
            let value: Substring
            if ai.fixedLength {
                value = rest.prefix(ai.maxLength)
                guard value.count == ai.maxLength, !value.contains("\u{1D}") else {
                    throw .wrongLength(
                        ai: ai.code, expected: "\(ai.maxLength)", found: value.prefix { $0 != "\u{1D}" }.count)
                }
                rest = rest.dropFirst(ai.maxLength)
                if rest.first == "\u{1D}" {
                    rest = rest.dropFirst()
                } else if !rest.isEmpty && !ai.endsWithoutSeparator {
                    throw .missingSeparator(ai: ai.code)
                }
            } else {
                value = rest.prefix { $0 != "\u{1D}" }
                rest = rest.dropFirst(value.count)
                if rest.first == "\u{1D}" { rest = rest.dropFirst() }
            }
            elements.append(try element(ai, String(value), referenceYear: referenceYear))
        }
        return elements
    }

    private static func parseBracketed(_ text: String, referenceYear: Int) throws(GS1Error) -> [Element] {
        var elements: [Element] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard rest.first == "(", let close = rest.firstIndex(of: ")") else { throw .badBrackets }
            let code = String(rest[rest.index(after: rest.startIndex)..<close])
            guard let ai = ApplicationIdentifier.known[code] else { throw .unknownAI(code, at: 0) }
            rest = rest[rest.index(after: close)...]
            let value = rest.prefix { $0 != "(" }
            rest = rest.dropFirst(value.count)
            if ai.fixedLength && value.count != ai.maxLength {
                throw .wrongLength(ai: ai.code, expected: "\(ai.maxLength)", found: value.count)
            }
            elements.append(try element(ai, String(value), referenceYear: referenceYear))
        }
        return elements
    }

    private static func element(_ ai: ApplicationIdentifier, _ value: String, referenceYear: Int) throws(GS1Error)
        -> Element
    {
        guard !value.isEmpty else { throw .wrongLength(ai: ai.code, expected: "1–\(ai.maxLength)", found: 0) }
        guard value.count <= ai.maxLength else {
            throw .wrongLength(ai: ai.code, expected: "1–\(ai.maxLength)", found: value.count)
        }
        let digitsOnly = value.utf8.allSatisfy { (48...57).contains($0) }
        switch ai.content {
        case .checkedDigits:
            guard digitsOnly else { throw .notDigits(ai: ai.code, value: value) }
            guard hasValidCheckDigit(value) else { throw .checkDigit(ai: ai.code, value: value) }
        case .digits, .decimal:
            guard digitsOnly else { throw .notDigits(ai: ai.code, value: value) }
        case .date:
            guard digitsOnly else { throw .notDigits(ai: ai.code, value: value) }
            guard let date = GS1Date(yymmdd: Substring(value), referenceYear: referenceYear) else {
                throw .badDate(ai: ai.code, value: value)
            }
            return Element(ai: ai, value: value, date: date)
        case .characters:
            guard value.utf8.allSatisfy(isCharacterSet82) else { throw .badCharacters(ai: ai.code, value: value) }
        }
        return Element(ai: ai, value: value, date: nil)
    }

    /// Whether every character of `text` is in GS1's character set 82 (what a lot or serial may hold).
    public static func isCharacterSet82(_ text: String) -> Bool { text.utf8.allSatisfy(isCharacterSet82) }

    /// GS1 AI encodable character set 82: `!"%&'()*+,-./0-9:;<=>?A-Z_a-z`.
    private static func isCharacterSet82(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x22, 0x25...0x3F, 0x41...0x5A, 0x5F, 0x61...0x7A: true
        default: false
        }
    }

    /// Whether the last digit of `digits` is their GS1 mod-10 check digit (any length from 2).
    public static func hasValidCheckDigit(_ digits: String) -> Bool {
        let values = Array(digits.utf8).map { Int($0) - 48 }
        guard values.count >= 2, values.allSatisfy({ (0...9).contains($0) }) else { return false }
        var sum = 0
        for (offset, digit) in values.dropLast().reversed().enumerated() { sum += digit * (offset % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == values[values.count - 1]
    }

    /// The data of the first element with AI `code`, as printed.
    public subscript(code: String) -> String? { elements.first { $0.ai.code == code }?.value }

    /// (01): the trade item's GTIN-14.
    public var gtin: String? { self["01"] }
    /// (02): the GTIN-14 of the trade items a logistic unit contains.
    public var containedGTIN: String? { self["02"] }
    /// (10): batch or lot.
    public var lot: String? { self["10"] }
    /// (21): serial number.
    public var serial: String? { self["21"] }
    /// (37): count of trade items (at most 8 digits, so it always fits).
    public var count: Int? { self["37"].flatMap { Int($0) } }
    /// (17) expiry, else (15) best before.
    public var expiry: GS1Date? { date("17") ?? date("15") }

    /// The date in the first element with AI `code` (checked, its century placed, when parsed).
    public func date(_ code: String) -> GS1Date? { elements.first { $0.ai.code == code }?.date }

    /// Each element's AI and data for a report: dates as `YYYY-MM-DD`, the rest as printed.
    public var reported: [(ai: String, value: String)] {
        elements.map { element in
            (element.ai.code, element.date?.description ?? element.value)
        }
    }

    /// Whether `text` looks like a GS1 element string rather than a plain code: a GS1 symbology
    /// identifier, brackets around a first AI, a GS, or (01)/(02) followed by 14 digits and more.
    public static func looksLikeGS1(_ text: String) -> Bool {
        // The GS is looked for in bytes: `String.contains(String)` is Foundation's search, a few
        // microseconds a call, and this runs in every scan's write transaction.
        if gs1SymbologyIdentifiers.contains(where: { text.hasPrefix($0) }) || text.utf8.contains(0x1D) { return true }
        if text.hasPrefix("(01)") || text.hasPrefix("(02)") || text.hasPrefix("(00)") { return true }
        let utf8 = Array(text.utf8)
        return utf8.count >= 16 && (text.hasPrefix("01") || text.hasPrefix("02"))
            && utf8[2..<16].allSatisfy { (48...57).contains($0) }
    }
}

/// Why a GS1 element string is malformed, in words a person can check against the label.
public enum GS1Error: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooLong(Int)
    case unknownAI(String, at: Int)
    case wrongLength(ai: String, expected: String, found: Int)
    case missingSeparator(ai: String)
    case notDigits(ai: String, value: String)
    case checkDigit(ai: String, value: String)
    case badDate(ai: String, value: String)
    case badCharacters(ai: String, value: String)
    case badBrackets
    case repeatedAI(String)
    case invalidPair(String)

    public var description: String {
        switch self {
        case .empty: "GS1 data with no element"
        case .tooLong(let limit): "GS1 data longer than \(limit) characters"
        case .unknownAI(let text, let offset): "no known GS1 AI at character \(offset) ('\(text)…')"
        case .wrongLength(let ai, let expected, let found): "(\(ai)) needs \(expected) characters, has \(found)"
        case .missingSeparator(let ai): "(\(ai)) is not followed by a GS before the next AI"
        case .notDigits(let ai, let value): "(\(ai)) must be digits, not '\(value)'"
        case .checkDigit(let ai, let value): "(\(ai)) \(value) has a wrong check digit"
        case .badDate(let ai, let value): "(\(ai)) \(value) is not a date (YYMMDD)"
        case .badCharacters(let ai, let value): "(\(ai)) '\(value)' has characters GS1 does not allow"
        case .badBrackets: "GS1 data with brackets must be (AI)data(AI)data…"
        case .repeatedAI(let ai): "(\(ai)) appears more than once"
        case .invalidPair(let rule): rule
        }
    }
}
