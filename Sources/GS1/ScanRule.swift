/// What one scanned code counts for on one order line: the rule the station applies before it
/// queues a scan and the server applies when the scan arrives, written once.
///
/// A plain code of the line's item (GTIN forms alike) is one unit; the line's case GTIN-14 is
/// `caseQty` units. A GS1 element string is read for its (01) GTIN, or its (02) contained GTIN and
/// (37) count; its (10) lot must be the line's lot when both name one, and its (17) expiry (else
/// (15) best before) may not fall before the line's `bestBefore`. Malformed GS1 data is refused,
/// never guessed at. Whether the units fit what the line still needs is the caller's check.
///
///     ScanRule.evaluate("0109501101530003", for: ScanRule.Line(barcode: "9501101530003"))  // .units(1)
public enum ScanRule {
    /// What an order line expects of a scan.
    public struct Line: Sendable, Equatable {
        public var barcode: String
        public var lot: String?
        public var bestBefore: GS1Date?
        public var caseGTIN: String?
        public var caseQty: Int?

        public init(
            barcode: String, lot: String? = nil, bestBefore: GS1Date? = nil, caseGTIN: String? = nil,
            caseQty: Int? = nil
        ) {
            self.barcode = barcode
            self.lot = lot
            self.bestBefore = bestBefore
            self.caseGTIN = caseGTIN
            self.caseQty = caseQty
        }
    }

    /// The verdict on one code.
    public enum Outcome: Sendable, Equatable {
        /// The code counts this many units of the line (at least 1).
        case units(Int)
        /// The code names another item.
        case otherItem
        /// The GS1 data names another lot than the line's.
        case lotMismatch(expected: String, scanned: String)
        /// The GS1 data's expiry is before the line's best-before date.
        case expired(expires: GS1Date, needs: GS1Date)
        /// The code is GS1 data that breaks the standard.
        case malformed(GS1Error)
        /// The GS1 data names the item in a logistic unit, (02), with no (37) count, or a count of 0.
        case noCount

        /// A sentence for the picker or the API's error body.
        public var reason: String {
            switch self {
            case .units(let units): "counts \(units) unit\(units == 1 ? "" : "s")"
            case .otherItem: "another item"
            case .lotMismatch(let expected, let scanned): "lot \(expected) expected, \(scanned) scanned"
            case .expired(let expires, let needs): "expires \(expires), needs ≥ \(needs)"
            case .malformed(let error): "malformed GS1 data: \(error)"
            case .noCount: "GS1 (02) content needs a (37) count of at least 1"
            }
        }
    }

    /// The verdict on `code` for `line`. `referenceYear` places GS1's two-digit years (default: now).
    /// `sameItem` says whether a plain code (not GS1 data) names a barcode's item: the station, which
    /// knows what its reader saw, passes a stricter one than the server's (an 8-digit code).
    public static func evaluate(
        _ code: String, for line: Line, referenceYear: Int? = nil,
        sameItem: (String, String) -> Bool = { GTIN.sameItem($0, $1) }
    ) -> Outcome {
        guard GS1ElementString.looksLikeGS1(code) else {
            if sameItem(code, line.barcode) { return .units(1) }
            if let caseGTIN = line.caseGTIN, let caseQty = line.caseQty, sameItem(code, caseGTIN) {
                return .units(caseQty)
            }
            return .otherItem
        }
        let data: GS1ElementString
        do {
            data = try GS1ElementString(parsing: code, referenceYear: referenceYear)
        } catch {
            return .malformed(error)
        }
        guard let units = units(in: data, for: line) else { return .otherItem }
        guard units >= 1 else { return .noCount }
        if let expected = line.lot, let scanned = data.lot, scanned != expected {
            return .lotMismatch(expected: expected, scanned: scanned)
        }
        if let needs = line.bestBefore,
            let expires = data.expiry,
            expires < needs
        {
            return .expired(expires: expires, needs: needs)
        }
        return .units(units)
    }

    /// The units `data` names of the line's item: (01) the item (1) or its case (`caseQty`); (02) the
    /// item or its case times the (37) count (0 when there is no count). Nil: another item.
    private static func units(in data: GS1ElementString, for line: Line) -> Int? {
        func isItem(_ gtin: String) -> Bool { GTIN.sameItem(gtin, line.barcode) }
        func isCase(_ gtin: String) -> Bool { line.caseGTIN.map { GTIN.sameItem(gtin, $0) } ?? false }
        if let gtin = data.gtin {
            if isItem(gtin) { return 1 }
            if isCase(gtin), let caseQty = line.caseQty { return caseQty }
            return nil
        }
        guard let contained = data.containedGTIN else { return nil }
        let count = data.count ?? 0
        if isItem(contained) { return count }
        if isCase(contained), let caseQty = line.caseQty {
            let (units, overflow) = count.multipliedReportingOverflow(by: caseQty)
            return overflow ? Int.max : units
        }
        return nil
    }
}
