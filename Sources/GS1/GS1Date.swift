/// A calendar date in GS1 data (`YYMMDD`) or on an order line (`YYYY-MM-DD`), compared as dates.
///
///     try GS1Date(yymmdd: "261200", century: 2000) == GS1Date(year: 2026, month: 12, day: 31)
public struct GS1Date: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A date that exists (years 1900–2999), or nil.
    public init?(year: Int, month: Int, day: Int) {
        guard (1900...2999).contains(year), (1...12).contains(month),
            (1...Self.days(inMonth: month, of: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// An order line's date, `YYYY-MM-DD`, or nil when it is not one that exists.
    public init?(iso text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// A GS1 date: `YYMMDD`, the century the one that puts the year at most 49 years before or 50
    /// after `referenceYear` (GS1 General Specifications 7.12), day `00` the month's last day.
    init?(yymmdd text: Substring, referenceYear: Int) {
        let digits = Array(text.utf8).map { Int($0) - 48 }
        guard digits.count == 6, digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
        let yy = digits[0] * 10 + digits[1]
        let month = digits[2] * 10 + digits[3]
        let day = digits[4] * 10 + digits[5]
        var year = referenceYear - referenceYear % 100 + yy
        if year - referenceYear >= 51 { year -= 100 } else if year - referenceYear <= -50 { year += 100 }
        guard (1...12).contains(month) else { return nil }
        self.init(year: year, month: month, day: day == 0 ? Self.days(inMonth: month, of: year) : day)
    }

    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public static func < (lhs: GS1Date, rhs: GS1Date) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
