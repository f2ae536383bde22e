/// The text of a GS1 DataBar Expanded symbol from its data characters' 12-bit values (ISO/IEC 24724,
/// 7.2.5): an encodation method that compresses common element strings (GTIN, weight, date, price),
/// then general-purpose data in numeric, alphanumeric and ISO 646 modes.
///
/// The text is the element string as ZBar writes it: application identifiers and their data with no
/// brackets, and a group separator (GS, 0x1D) where FNC1 ends a variable-length field.
enum DataBarExpandedText {
    private static let groupSeparator = UInt8(0x1D)

    /// The text of `values` (each 12 bits, the check character left out), or nil when the bits break
    /// the encodation rules.
    static func decode(_ values: [Int]) -> [UInt8]? {
        var bits = BitReader(values: values)
        guard bits.count > 8 else { return nil }
        var text: [UInt8] = []
        let method: Int
        // Bit 0 is the linkage flag (a 2-D component follows); the method starts at bit 1.
        if bits.peek(1, at: 1) == 1 {
            method = 1
        } else if bits.peek(2, at: 1) == 0 {
            method = 0
        } else if let four = [4, 5].first(where: { $0 == bits.peek(4, at: 1) }) {
            method = four
        } else if let five = [12, 13].first(where: { $0 == bits.peek(5, at: 1) }) {
            method = five
        } else if (56...63).contains(bits.peek(7, at: 1)) {
            method = bits.peek(7, at: 1)
        } else {
            return nil
        }
        switch method {
        case 0:  // 00: general-purpose data only, after a 2-bit variable-length field
            bits.position = 5
        case 1:  // 1: AI 01 with any indicator digit, then general-purpose data
            bits.position = 4
            text += Array("01".utf8) + [48 + UInt8(bits.read(4))]
            guard appendGTINDigits(&text, &bits) else { return nil }
        case 4, 5:  // 0100: AI 01 + 3103 weight; 0101: AI 01 + 3202/3203 weight
            bits.position = 5
            guard bits.count == 5 + 40 + 15 else { return nil }
            text += Array("019".utf8)
            guard appendGTINDigits(&text, &bits) else { return nil }
            var weight = bits.read(15)
            if method == 4 {
                text += Array("3103".utf8)
            } else {
                text += Array((weight >= 10_000 ? "3203" : "3202").utf8)
                if weight >= 10_000 { weight -= 10_000 }
            }
            text += digits(weight, count: 6)
            return text
        case 12, 13:  // 01100: AI 01 + 392x price; 01101: AI 01 + 393x price with currency
            bits.position = 8
            text += Array("019".utf8)
            guard appendGTINDigits(&text, &bits) else { return nil }
            text += Array("39\(method == 12 ? 2 : 3)\(bits.read(2))".utf8)
            if method == 13 {
                let currency = bits.read(10)
                guard currency < 1000 else { return nil }
                text += digits(currency, count: 3)
            }
        default:  // 0111xxx: AI 01 + 310x/320x weight + optional 11/13/15/17 date, fixed length
            bits.position = 8
            guard bits.count == 8 + 40 + 20 + 16 else { return nil }
            text += Array("019".utf8)
            guard appendGTINDigits(&text, &bits) else { return nil }
            let weight = bits.read(20)
            guard weight < 1_000_000 else { return nil }
            text += Array("3\(method % 2 == 0 ? 1 : 2)0\(weight / 100_000)".utf8) + digits(weight % 100_000, count: 6)
            var date = bits.read(16)
            if date != 38_400 {
                guard date < 38_400 else { return nil }
                let day = date % 32
                date /= 32
                let month = date % 12 + 1
                let year = date / 12
                text += Array("1\([1, 3, 5, 7][(method - 56) / 2])".utf8)
                text += digits(year, count: 2) + digits(month, count: 2) + digits(day, count: 2)
            }
            return text
        }
        guard let general = generalPurpose(&bits) else { return nil }
        text += general
        while text.last == groupSeparator { text.removeLast() }
        return text
    }

    /// Twelve GTIN digits from four 10-bit groups, then the GTIN-14 check digit over the 13 before.
    private static func appendGTINDigits(_ text: inout [UInt8], _ bits: inout BitReader) -> Bool {
        for _ in 0..<4 {
            let group = bits.read(10)
            guard group < 1000 else { return false }
            text += digits(group, count: 3)
        }
        let gtin = text.suffix(13).map { Int($0) - 48 }
        let sum = gtin.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 3 : 1) }
        text.append(48 + UInt8((10 - sum % 10) % 10))
        return true
    }

    private static func digits(_ value: Int, count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 48, count: count)
        var rest = value
        for index in stride(from: count - 1, through: 0, by: -1) {
            out[index] = 48 + UInt8(rest % 10)
            rest /= 10
        }
        return out
    }

    private enum Mode { case numeric, alphanumeric, iso646 }

    /// General-purpose data from the reader's position to the end (7.2.5.5). FNC1 becomes GS; in the
    /// alphanumeric and ISO 646 modes it also returns to numeric mode.
    private static func generalPurpose(_ bits: inout BitReader) -> [UInt8]? {
        var text: [UInt8] = []
        var mode = Mode.numeric
        while bits.remaining > 0 {
            switch mode {
            case .numeric:
                if bits.remaining < 7 {
                    // A last single digit in 4 bits (value + 1); zero bits here are padding.
                    guard bits.remaining >= 4, bits.peek(4) != 0 else { return text }
                    let digit = bits.read(4) - 1
                    guard digit <= 10 else { return nil }
                    text.append(digit == 10 ? groupSeparator : 48 + UInt8(digit))
                    return text
                }
                if bits.peek(4) == 0 {
                    bits.position += 4
                    mode = .alphanumeric
                    continue
                }
                let pair = bits.read(7) - 8
                guard pair >= 0, pair < 121 else { return nil }
                for digit in [pair / 11, pair % 11] { text.append(digit == 10 ? groupSeparator : 48 + UInt8(digit)) }
            case .alphanumeric, .iso646:
                if bits.remaining >= 3, bits.peek(3) == 0 {
                    bits.position += 3
                    mode = .numeric
                    continue
                }
                if bits.remaining < 5 { return text }  // padding
                let five = bits.peek(5)
                if five == 4 {  // 00100: latch to the other of the two
                    bits.position += 5
                    mode = mode == .alphanumeric ? .iso646 : .alphanumeric
                    continue
                }
                if (5...15).contains(five) {
                    bits.position += 5
                    if five == 15 {
                        text.append(groupSeparator)
                        mode = .numeric
                        // Some encoders latch to numeric explicitly after FNC1 (`000`). Read as numeric,
                        // that would be a latch to letters, and no application identifier starts with one.
                        if bits.remaining >= 4 && bits.peek(4) == 0 { bits.position += 3 }
                    } else {
                        text.append(UInt8(43 + five))
                    }
                    continue
                }
                guard let character = mode == .alphanumeric ? alphanumeric(&bits) : iso646(&bits) else {
                    // Whatever is left is too short for a character: padding, or a broken stream.
                    return bits.remaining < 8 ? text : nil
                }
                text.append(character)
            }
        }
        return text
    }

    /// An upper-case letter or one of `*,-./` in 6 bits.
    private static func alphanumeric(_ bits: inout BitReader) -> UInt8? {
        guard bits.remaining >= 6 else { return nil }
        let six = bits.peek(6)
        switch six {
        case 32...57: bits.position += 6; return UInt8(six + 33)
        case 58...62: bits.position += 6; return Array("*,-./".utf8)[six - 58]
        default: return nil
        }
    }

    /// A letter in 7 bits, or punctuation or a space in 8.
    private static func iso646(_ bits: inout BitReader) -> UInt8? {
        if bits.remaining >= 7 {
            let seven = bits.peek(7)
            if (64...89).contains(seven) { bits.position += 7; return UInt8(seven + 1) }
            if (90...115).contains(seven) { bits.position += 7; return UInt8(seven + 7) }
        }
        guard bits.remaining >= 8 else { return nil }
        let eight = bits.peek(8)
        guard (232...252).contains(eight) else { return nil }
        bits.position += 8
        return Array("!\"%&'()*+,-./:;<=>?_ ".utf8)[eight - 232]
    }
}

/// Big-endian bits of a sequence of 12-bit values.
private struct BitReader {
    let values: [Int]
    var position = 0
    var count: Int { values.count * 12 }
    var remaining: Int { count - position }

    init(values: [Int]) { self.values = values }

    func bit(_ index: Int) -> Int { (values[index / 12] >> (11 - index % 12)) & 1 }

    /// `width` bits from `start` (default: the current position) as a number; missing bits read 0.
    func peek(_ width: Int, at start: Int? = nil) -> Int {
        let from = start ?? position
        var value = 0
        for index in from..<(from + width) { value = value << 1 | (index < count ? bit(index) : 0) }
        return value
    }

    mutating func read(_ width: Int) -> Int {
        defer { position += width }
        return peek(width)
    }
}
