/// Finds where JSON text stops being valid JSON, for a message a person can act on. Foundation's
/// parser says only "around character N" for some mistakes and "unexpected end of file" for
/// others (a misspelt `true` among them); this walks the grammar (RFC 8259) and returns the offset
/// of the first byte that cannot be part of valid JSON, or the end when the text stops too early.
///
///     JSONSyntax.firstError(in: Array(#"{"a": tru}"#.utf8))?.offset  // 6: the "t" that begins no value
public enum JSONSyntax {
    /// The UTF-8 byte order mark some editors (Windows Notepad) begin a file with; Foundation's
    /// parser skips it, and so does this.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Where the text stops being valid JSON, and whether only its nesting is to blame.
    struct Failure: Error, Equatable {
        /// The offset of the first offending byte (the count of bytes when the text ends early).
        let offset: Int
        /// The value there is nested deeper than ``Scanner/maxDepth``: valid JSON, but refused.
        var tooDeep = false
    }

    /// The most containers one value may be nested in.
    static var maxDepth: Int { Scanner.maxDepth }

    /// Where the text stops being JSON, in words with its line and column ("this is not valid JSON
    /// at line 3, column 13"), or nil when it is valid JSON.
    public static func problem(in bytes: [UInt8]) -> String? {
        guard let failure = firstError(in: bytes) else { return nil }
        let (line, column) = position(of: failure.offset, in: bytes)
        let what =
            failure.tooDeep
            ? "the JSON is nested more than \(maxDepth) deep"
            : failure.offset == bytes.count ? "the JSON ends early" : "this is not valid JSON"
        return "\(what) at line \(line), column \(column)"
    }

    /// The paths (`units[0].qty`) of the first `limit` numbers in valid JSON `bytes` that no `Int`
    /// holds (a fraction, or beyond ±2⁶³), in document order; empty for text that is not JSON.
    /// Foundation's decoder refuses such a number for an `Int` field without saying which field;
    /// these are the candidates (a field the type does not read may hold one too).
    public static func numbersNotInts(in bytes: [UInt8], atMost limit: Int) -> [String] {
        var scanner = Scanner(bytes: bytes, watchNumbers: limit)
        if bytes.starts(with: byteOrderMark) { scanner.offset = byteOrderMark.count }
        scanner.skipSpace()
        do {
            try scanner.value(depth: 0)
        } catch {
            return []
        }
        return scanner.numbersNotInts
    }

    /// The first key that appears twice in one object of valid JSON `bytes`, as its path
    /// (`queue.backoffCapSeconds`) with the line and column of its second appearance; nil when none
    /// does (or the text is not JSON). Foundation's parser keeps one of the values without a word.
    /// Keys are compared as a decoder reads them: unescaped (`"q\u0074y"` is `"qty"`, a surrogate
    /// pair is its one character) and as Swift compares strings (canonically equal forms match).
    /// `knownValid`: the caller has parsed `bytes` already, so the check of its grammar is skipped.
    public static func repeatedKey(in bytes: [UInt8], knownValid: Bool = false) -> (
        path: String, line: Int, column: Int
    )? {
        guard knownValid || firstError(in: bytes) == nil else { return nil }
        var scanner = Scanner(bytes: bytes, watchKeys: true)
        if bytes.starts(with: byteOrderMark) { scanner.offset = byteOrderMark.count }
        scanner.skipSpace()
        _ = try? scanner.value(depth: 0)  // stops at the first repeat
        guard let repeated = scanner.repeated else { return nil }
        let (line, column) = position(of: repeated.offset, in: bytes)
        return (repeated.path, line, column)
    }

    /// The line and column (from 1, in characters) of the byte at `offset`.
    private static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        let start = bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
        for byte in bytes[start..<offset] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // count characters, not UTF-8 continuation bytes
                column += 1
            }
        }
        return (line, column)
    }

    /// The first failure, or nil when the text is valid JSON.
    static func firstError(in bytes: [UInt8]) -> Failure? {
        var scanner = Scanner(bytes: bytes)
        if bytes.starts(with: byteOrderMark) { scanner.offset = byteOrderMark.count }
        do {
            scanner.skipSpace()
            try scanner.value(depth: 0)
            scanner.skipSpace()
            return scanner.offset == bytes.count ? nil : Failure(offset: scanner.offset)
        } catch {
            return error
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var offset = 0
        /// How many numbers no `Int` holds to note, with their paths (0: none, and no paths kept).
        let numbersToNote: Int
        var watchNumbers: Bool { numbersToNote > 0 }
        /// Whether to look for a key repeated in one object (and stop at the first).
        let watchKeys: Bool
        /// The keys and indexes leading to the value being scanned (kept only when watching).
        var path: [PathPart] = []
        var tracksPath: Bool { watchNumbers || watchKeys }
        /// One step of a path, kept as the bytes or number it is: text is made only for a message.
        enum PathPart {
            case key(ArraySlice<UInt8>)
            /// A key written with escapes, as it reads once unescaped.
            case name(String)
            case index(Int)
        }

        /// The path as messages write it: `units[0].qty`.
        var joinedPath: String {
            path.reduce(into: "") { joined, part in
                switch part {
                case .index(let index): joined += "[\(index)]"
                case .key(let key):
                    joined += (joined.isEmpty ? "" : ".") + String(decoding: key, as: UTF8.self)
                case .name(let name):
                    joined += (joined.isEmpty ? "" : ".") + name
                }
            }
        }
        var numbersNotInts: [String] = []
        /// The first repeated key's path, and where its second appearance begins.
        var repeated: (path: String, offset: Int)?

        init(bytes: [UInt8], watchNumbers limit: Int = 0, watchKeys: Bool = false) {
            self.bytes = bytes
            numbersToNote = limit
            self.watchKeys = watchKeys
        }

        /// Deeper than this is refused rather than recursed into: a config or a request is never
        /// a tenth as deep, and each level is two stack frames (at 512, a debug build overflowed a
        /// 1 MiB worker thread's stack describing a body Foundation had refused as too deep).
        static let maxDepth = 128

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipSpace() {
            while let byte = current, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { offset += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(Failure) {
            guard current == byte else { throw Failure(offset: offset) }
            offset += 1
        }

        mutating func value(depth: Int) throws(Failure) {
            guard depth < Self.maxDepth else { throw Failure(offset: offset, tooDeep: true) }
            guard let byte = current else { throw Failure(offset: offset) }
            switch byte {
            case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), keyed: true, depth: depth)
            case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), keyed: false, depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw Failure(offset: offset)
            }
        }

        mutating func container(close: UInt8, keyed: Bool, depth: Int) throws(Failure) {
            offset += 1
            skipSpace()
            if current == close {
                offset += 1
                return
            }
            var index = 0
            var keys = ObjectKeys()
            while true {
                if keyed {
                    guard current == UInt8(ascii: "\"") else { throw Failure(offset: offset) }
                    let keyStart = offset + 1
                    try string()
                    let key = bytes[keyStart..<(offset - 1)]
                    // A repeat is named as it reads (`q\u0074y` is `qty`); other paths as written.
                    let unescape = watchKeys && key.contains(UInt8(ascii: "\\"))
                    if tracksPath { path.append(unescape ? .name(ObjectKeys.shown(key)) : .key(key)) }
                    if watchKeys, !keys.insert(key) {
                        repeated = (joinedPath, keyStart - 1)
                        throw Failure(offset: keyStart - 1)  // found: no need to read on
                    }
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    skipSpace()
                } else if tracksPath {
                    path.append(.index(index))
                }
                index += 1
                try value(depth: depth + 1)
                if tracksPath { path.removeLast() }
                skipSpace()
                if current == close {
                    offset += 1
                    return
                }
                try expect(UInt8(ascii: ","))
                skipSpace()
            }
        }

        mutating func string() throws(Failure) {
            offset += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    return
                case UInt8(ascii: "\\"):
                    offset += 1
                    guard let escaped = current else { throw Failure(offset: offset) }
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            offset += 1
                            guard let hex = current, hex.isHexDigit else { throw Failure(offset: offset) }
                        }
                    } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
                        throw Failure(offset: offset)
                    }
                    offset += 1
                case 0x00..<0x20:
                    throw Failure(offset: offset)  // a raw control character (a line break) inside a string
                default:
                    offset += 1
                }
            }
            throw Failure(offset: offset)
        }

        /// A misspelt `true` is pointed at where it begins.
        mutating func literal(_ word: String) throws(Failure) {
            let start = offset
            for expected in word.utf8 {
                guard current == expected else { throw Failure(offset: start) }
                offset += 1
            }
        }

        mutating func number() throws(Failure) {
            let start = offset
            defer { if numbersNotInts.count < numbersToNote { noteIfNotAnInt(bytes[start..<offset]) } }
            if current == UInt8(ascii: "-") { offset += 1 }
            guard let first = current, first.isDigit else { throw Failure(offset: offset) }
            offset += 1
            if first != UInt8(ascii: "0") { while current?.isDigit == true { offset += 1 } }
            if current == UInt8(ascii: ".") {
                offset += 1
                guard current?.isDigit == true else { throw Failure(offset: offset) }
                while current?.isDigit == true { offset += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                offset += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
                guard current?.isDigit == true else { throw Failure(offset: offset) }
                while current?.isDigit == true { offset += 1 }
            }
        }

        /// Notes the path to `text` if no `Int` holds it: digits alone must fit; a fraction or
        /// exponent must come to a whole number (`2.0`, `1E2` are taken) inside ±2⁶³.
        mutating func noteIfNotAnInt(_ text: ArraySlice<UInt8>) {
            let written = String(decoding: text, as: UTF8.self)
            let holds: Bool
            if text.allSatisfy({ $0.isDigit || $0 == UInt8(ascii: "-") }) {
                holds = Int(written) != nil
            } else if let value = Double(written) {
                holds = value.isFinite && value == value.rounded() && abs(value) < 0x1p63
            } else {
                holds = false
            }
            guard !holds else { return }
            numbersNotInts.append(joinedPath)
        }
    }
}

/// The keys of one object seen so far. Plain ASCII keys are compared as bytes; once a key holds an
/// escape or a byte outside ASCII, every key of the object is compared as the text a decoder makes
/// of it (`"q\u0074y"` is `"qty"`; Swift's `String` equality also matches canonically equal forms).
private struct ObjectKeys {
    private var plain = Set<ArraySlice<UInt8>>()
    private var names: Set<String>?

    /// Whether `key` (its bytes as written, between the quotes) is new to the object.
    mutating func insert(_ key: ArraySlice<UInt8>) -> Bool {
        let isPlain = key.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\\") }
        if names == nil {
            if isPlain { return plain.insert(key).inserted }
            names = Set(plain.map { String(decoding: $0, as: UTF8.self) })
        }
        let name = isPlain ? String(decoding: key, as: UTF8.self) : Self.decoded(key)
        return names?.insert(name).inserted ?? true
    }

    /// The key's text with its escapes undone; a lone surrogate (no character) is kept written as
    /// `\udXXX` in lower case, so two different ones stay different and equal ones match.
    static func decoded(_ key: ArraySlice<UInt8>) -> String {
        var text = ""
        var units: [UInt16] = []
        var index = key.startIndex
        func flushUnits() {
            var at = 0
            while at < units.count {
                let unit = units[at]
                if UTF16.isLeadSurrogate(unit), at + 1 < units.count, UTF16.isTrailSurrogate(units[at + 1]),
                    let scalar = Unicode.Scalar(
                        0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(units[at + 1] - 0xDC00))
                {
                    text.unicodeScalars.append(scalar)
                    at += 2
                } else if let scalar = Unicode.Scalar(unit) {
                    text.unicodeScalars.append(scalar)
                    at += 1
                } else {
                    text += "\\u" + String(unit, radix: 16)
                    at += 1
                }
            }
            units.removeAll()
        }
        var raw: [UInt8] = []
        while index < key.endIndex {
            let byte = key[index]
            guard byte == UInt8(ascii: "\\"), key.index(after: index) < key.endIndex else {
                if !units.isEmpty { flushUnits() }
                raw.append(byte)
                index += 1
                continue
            }
            if !raw.isEmpty {
                text += String(decoding: raw, as: UTF8.self)
                raw.removeAll()
            }
            let escaped = key[index + 1]
            if escaped == UInt8(ascii: "u"), index + 6 <= key.endIndex,
                let unit = UInt16(String(decoding: key[(index + 2)..<(index + 6)], as: UTF8.self), radix: 16)
            {
                units.append(unit)
                index += 6
                continue
            }
            if !units.isEmpty { flushUnits() }
            switch escaped {
            case UInt8(ascii: "b"): text += "\u{08}"
            case UInt8(ascii: "f"): text += "\u{0C}"
            case UInt8(ascii: "n"): text += "\n"
            case UInt8(ascii: "r"): text += "\r"
            case UInt8(ascii: "t"): text += "\t"
            default: text.unicodeScalars.append(Unicode.Scalar(escaped))  // \" \\ \/
            }
            index += 2
        }
        if !units.isEmpty { flushUnits() }
        if !raw.isEmpty { text += String(decoding: raw, as: UTF8.self) }
        return text
    }

    /// A key written with escapes as a message shows it: its text, unless that holds a control or
    /// format character (a line break, a direction override), then as written.
    static func shown(_ key: ArraySlice<UInt8>) -> String {
        let text = decoded(key)
        let safe = text.unicodeScalars.allSatisfy {
            ![.control, .format].contains($0.properties.generalCategory)
        }
        return safe ? text : String(decoding: key, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isHexDigit: Bool {
        isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
