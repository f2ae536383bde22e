/// GS1 Global Trade Item Numbers: the rules that make one product's UPC-A, UPC-E and EAN-13
/// readings the same item (`036000291452` = `0036000291452`).
///
///     GTIN.normalised("036000291452") == "0036000291452"
public enum GTIN {
    /// The 13-digit form of an EAN-13, UPC-A (12 digits) or UPC-E (8 digits) code, or nil when
    /// `code` is none of those.
    public static func normalised(_ code: String) -> String? {
        guard code.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        switch code.count {
        case 13: return code
        case 12: return "0" + code
        case 8: return upcEToUPCA(code).map { "0" + $0 }
        default: return nil
        }
    }

    /// What a reader said an 8-digit code was: the same digits are an EAN-8 (a GTIN-8, an item of
    /// its own) or a UPC-E (a UPC-A with its zeros left out).
    public enum EightDigitSymbology: Sendable, Equatable {
        case ean8
        case upcE
    }

    /// Whether a reading certainly names the same item as a task's code: equal text, or else one
    /// item that both can only name. An 8-digit code is ambiguous — the same digits are an EAN-8 and,
    /// starting with 0 or 1, a UPC-E — so it names every item its valid readings give: `firstReadAs`
    /// (what the reader reported for `first`) keeps only that reading, and the task's own code, whose
    /// symbology is never known, keeps both. A keyboard-wedge scan (nil) of an 8-digit code that is a
    /// valid EAN-8 and a valid UPC-E therefore matches only the same 8 digits, never a UPC-A by
    /// guessing UPC-E.
    public static func sameItem(_ first: String, _ second: String, firstReadAs: EightDigitSymbology? = nil) -> Bool {
        if first == second { return true }
        let a = items(first, readAs: firstReadAs)
        return a.count == 1 && a == items(second, readAs: nil)
    }

    /// Whether two readings may name the same item: some reading of each agrees. For a judge that
    /// does not know what the reader reported (the API server): the station has already checked the
    /// scan with ``sameItem(_:_:firstReadAs:)``, which is stricter, so what it accepts passes here.
    public static func mayBeSameItem(_ first: String, _ second: String) -> Bool {
        first == second || !items(first, readAs: nil).isDisjoint(with: items(second, readAs: nil))
    }

    /// The items (13- or 14-digit forms, as ``item(_:)``) a reading may name: one for an EAN-13,
    /// UPC-A, GTIN-14 or DataBar element string; for 8 digits, its EAN-8 reading when its check digit
    /// is valid as one and its UPC-E reading when it expands to a valid UPC-A, only the reported one
    /// when `readAs` says which.
    static func items(_ code: String, readAs: EightDigitSymbology?) -> Set<String> {
        guard code.utf8.count == 8 else { return item(code).map { [$0] } ?? [] }
        var readings: Set<String> = []
        if readAs != .upcE, hasValidCheckDigit(code), let ean8 = gtin8(code) { readings.insert(ean8) }
        if readAs != .ean8, let upca = upcEToUPCA(code), hasValidCheckDigit(upca) { readings.insert("0" + upca) }
        return readings
    }

    /// An EAN-8's 13-digit form (the GTIN-8 padded with zeros), or nil when it is not 8 digits.
    static func gtin8(_ code: String) -> String? {
        guard code.utf8.count == 8, code.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return "00000" + code
    }

    /// The GTIN a reading names, in one form per item: an EAN-13, UPC-A or UPC-E as its 13 digits
    /// (``normalised(_:)``); a GTIN-14, or a GS1 element string that starts with AI 01 as DataBar
    /// codes read (`0100012345678905`, or with a weight after it), as the GTIN-13 when its indicator
    /// digit is 0 and as itself otherwise (indicator 1–8 is a case of the item, not the item). Nil
    /// when the reading is none of these or its check digit is wrong.
    public static func item(_ code: String) -> String? {
        if let gtin13 = normalised(code) { return gtin13 }
        let gtin14: Substring
        if code.utf8.count == 14 {
            gtin14 = Substring(code)
        } else if code.utf8.count >= 16, code.hasPrefix("01") {
            gtin14 = code.dropFirst(2).prefix(14)
        } else {
            return nil
        }
        guard gtin14.utf8.allSatisfy({ (48...57).contains($0) }), hasValidCheckDigit(String(gtin14)) else {
            return nil
        }
        return gtin14.first == "0" ? String(gtin14.dropFirst()) : String(gtin14)
    }

    /// Expands an 8-digit UPC-E (number system, six digits, check digit) to its 12-digit UPC-A.
    public static func upcEToUPCA(_ upce: String) -> String? {
        let digits = Array(upce.utf8).map { Int($0) - 48 }
        guard digits.count == 8, digits.allSatisfy({ (0...9).contains($0) }), digits[0] <= 1 else { return nil }
        let d = Array(digits[1...6])
        let body: [Int]
        switch d[5] {
        case 0, 1, 2: body = [d[0], d[1], d[5], 0, 0, 0, 0, d[2], d[3], d[4]]
        case 3: body = [d[0], d[1], d[2], 0, 0, 0, 0, 0, d[3], d[4]]
        case 4: body = [d[0], d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4]]
        default: body = [d[0], d[1], d[2], d[3], d[4], 0, 0, 0, 0, d[5]]
        }
        return ([digits[0]] + body + [digits[7]]).map(String.init).joined()
    }

    /// Whether the last digit of a GTIN-8/12/13/14 is the right check digit.
    public static func hasValidCheckDigit(_ code: String) -> Bool {
        let digits = Array(code.utf8).map { Int($0) - 48 }
        guard [8, 12, 13, 14].contains(digits.count), digits.allSatisfy({ (0...9).contains($0) }) else {
            return false
        }
        var sum = 0
        for (offset, digit) in digits.dropLast().reversed().enumerated() {
            sum += digit * (offset % 2 == 0 ? 3 : 1)
        }
        return (10 - sum % 10) % 10 == digits[digits.count - 1]
    }
}
