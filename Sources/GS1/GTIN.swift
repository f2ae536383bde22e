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

    /// Whether two readings name the same item: equal ``item(_:)`` forms, or equal text otherwise.
    /// `firstReadAs` is what the reader reported for `first` when it is 8 digits: an EAN-8 is then
    /// never taken for a UPC-E (which an 8-digit code starting with 0 or 1 otherwise is).
    public static func sameItem(_ first: String, _ second: String, firstReadAs: EightDigitSymbology? = nil) -> Bool {
        if first == second { return true }
        let a = firstReadAs == .ean8 && first.utf8.count == 8 ? gtin8(first) : item(first)
        guard let a, let b = item(second) else { return false }
        return a == b
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
