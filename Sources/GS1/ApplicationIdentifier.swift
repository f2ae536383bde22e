/// A GS1 Application Identifier this reader knows: its digits, what its data is, and how long it
/// may be (GS1 General Specifications, section 3). An element string with an AI not in ``known``
/// is reported as malformed, never guessed at: without the table, where its data ends is unknown.
public struct ApplicationIdentifier: Sendable, Equatable {
    /// What the data field holds.
    public enum Content: Sendable, Equatable {
        /// Digits ending in a mod-10 check digit (GTIN, SSCC, GLN).
        case checkedDigits
        /// Digits.
        case digits
        /// A date, `YYMMDD` (day `00`: the month's last day).
        case date
        /// Characters of GS1's set 82 (letters, digits and `!"%&'()*+,-./:;<=>?_`).
        case characters
        /// Digits with the number of decimals in the AI's last digit (310n–316n, 392n).
        case decimal
    }

    /// The AI's digits, `01` or `3103`.
    public let code: String
    public let title: String
    public let content: Content
    /// The data's length: exactly `maxLength` when `fixedLength`, else 1 to `maxLength`.
    public let maxLength: Int
    public let fixedLength: Bool

    /// Whether the element's data may be followed by another element without a GS (FNC1): the AIs
    /// whose first two digits are in the standard's table of predefined lengths (Figure 7.8.5-2).
    /// Every other element ends with GS unless it is the last.
    public var endsWithoutSeparator: Bool {
        fixedLength && Self.predefinedLengthPrefixes.contains(String(code.prefix(2)))
    }

    static let predefinedLengthPrefixes: Set<String> = [
        "00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "31", "32", "33",
        "34", "35", "36", "41",
    ]

    /// The AI at the start of `digits`, if it is one of ``known``.
    static func at(_ digits: Substring) -> ApplicationIdentifier? {
        for length in 2...4 where digits.count >= length {
            if let ai = known[String(digits.prefix(length))] { return ai }
        }
        return nil
    }

    /// The AIs this reader knows, by their digits.
    public static let known: [String: ApplicationIdentifier] = {
        var table: [String: ApplicationIdentifier] = [:]
        func add(_ code: String, _ title: String, _ content: Content, _ length: Int, fixed: Bool) {
            table[code] = ApplicationIdentifier(
                code: code, title: title, content: content, maxLength: length, fixedLength: fixed)
        }
        add("00", "SSCC", .checkedDigits, 18, fixed: true)
        add("01", "GTIN", .checkedDigits, 14, fixed: true)
        add("02", "CONTENT", .checkedDigits, 14, fixed: true)
        add("10", "BATCH/LOT", .characters, 20, fixed: false)
        add("11", "PROD DATE", .date, 6, fixed: true)
        add("12", "DUE DATE", .date, 6, fixed: true)
        add("13", "PACK DATE", .date, 6, fixed: true)
        add("15", "BEST BEFORE or BEST BY", .date, 6, fixed: true)
        add("16", "SELL BY", .date, 6, fixed: true)
        add("17", "USE BY or EXPIRY", .date, 6, fixed: true)
        add("20", "VARIANT", .digits, 2, fixed: true)
        add("21", "SERIAL", .characters, 20, fixed: false)
        add("22", "CPV", .characters, 20, fixed: false)
        add("240", "ADDITIONAL ID", .characters, 30, fixed: false)
        add("241", "CUST. PART No.", .characters, 30, fixed: false)
        add("30", "VAR. COUNT", .digits, 8, fixed: false)
        add("37", "COUNT", .digits, 8, fixed: false)
        let measures = [
            "310": "NET WEIGHT (kg)", "311": "LENGTH (m)", "312": "WIDTH (m)", "313": "HEIGHT (m)",
            "314": "AREA (m2)", "315": "NET VOLUME (l)", "316": "NET VOLUME (m3)",
        ]
        for (prefix, title) in measures {
            for decimals in 0...5 { add(prefix + String(decimals), title, .decimal, 6, fixed: true) }
        }
        for decimals in 0...9 { add("392" + String(decimals), "PRICE", .decimal, 15, fixed: false) }
        add("400", "ORDER NUMBER", .characters, 30, fixed: false)
        add("401", "GINC", .characters, 30, fixed: false)
        add("402", "GSIN", .checkedDigits, 17, fixed: true)
        add("403", "ROUTE", .characters, 30, fixed: false)
        add("410", "SHIP TO LOC", .checkedDigits, 13, fixed: true)
        add("411", "BILL TO", .checkedDigits, 13, fixed: true)
        add("412", "PURCHASE FROM", .checkedDigits, 13, fixed: true)
        add("413", "SHIP FOR LOC", .checkedDigits, 13, fixed: true)
        add("414", "LOC No.", .checkedDigits, 13, fixed: true)
        add("420", "SHIP TO POST", .characters, 20, fixed: false)
        for company in 90...99 { add(String(company), "INTERNAL", .characters, company == 90 ? 30 : 90, fixed: false) }
        return table
    }()
}
