import Testing

@testable import GS1

/// The rule the station and the server share: what one scanned code counts for on one line.
@Suite struct ScanRuleTests {
    let gs = "\u{1D}"
    // GS1's example item; its case (indicator 1) holds 12.
    let line = ScanRule.Line(
        barcode: "9501101530003", lot: "L123", bestBefore: GS1Date(year: 2027, month: 1, day: 1),
        caseGTIN: "19501101530000", caseQty: 12)

    func evaluate(_ code: String, _ line: ScanRule.Line? = nil) -> ScanRule.Outcome {
        ScanRule.evaluate(code, for: line ?? self.line, referenceYear: 2026)
    }

    @Test func plainCodesCountOneUnitAndTheCaseGTINCountsTheCase() {
        #expect(evaluate("9501101530003") == .units(1))
        #expect(evaluate("09501101530003") == .units(1))  // GTIN-14 with indicator 0
        #expect(evaluate("19501101530000") == .units(12))
        #expect(evaluate("5901234123457") == .otherItem)
        // A case GTIN on a line without one is another item, as before.
        #expect(evaluate("19501101530000", ScanRule.Line(barcode: "9501101530003")) == .otherItem)
    }

    @Test func gs1DataChecksLotAndExpiry() {
        #expect(evaluate("0109501101530003" + "17270101" + "10L123") == .units(1))
        #expect(evaluate("0109501101530003" + "17270101" + "10L999") == .lotMismatch(expected: "L123", scanned: "L999"))
        #expect(
            evaluate("0109501101530003" + "17261201" + "10L123")
                == .expired(
                    expires: GS1Date(year: 2026, month: 12, day: 1)!, needs: GS1Date(year: 2027, month: 1, day: 1)!))
        // No lot or date on the label: nothing to refuse on.
        #expect(evaluate("0109501101530003") == .units(1))
        // Best before (15) when there is no expiry (17).
        if case .expired = evaluate("0109501101530003" + "15261231") {} else { Issue.record("(15) not checked") }
        // A line without lot or date takes any.
        #expect(evaluate("0109501101530003" + "17200101" + "10X", ScanRule.Line(barcode: "9501101530003")) == .units(1))
        #expect(
            ScanRule.Outcome.lotMismatch(expected: "L123", scanned: "L999").reason == "lot L123 expected, L999 scanned")
        #expect(
            ScanRule.Outcome.expired(expires: GS1Date(iso: "2026-12-01")!, needs: GS1Date(iso: "2027-01-01")!).reason
                == "expires 2026-12-01, needs ≥ 2027-01-01")
    }

    @Test func casesCountTheirUnits() {
        #expect(evaluate("0119501101530000" + "10L123") == .units(12))
        // (02) + (37): the count of the line's items, or of its cases times the case quantity.
        #expect(evaluate("0209501101530003" + "3730" + gs + "10L123") == .units(30))
        #expect(evaluate("0219501101530000" + "373") == .units(36))
        #expect(evaluate("0209501101530003") == .noCount)
        #expect(evaluate("0209501101530003" + "370") == .noCount)
        #expect(evaluate("0209501101530003" + "3730" + gs + "10L9") == .lotMismatch(expected: "L123", scanned: "L9"))
        // The biggest count GS1 allows times a big case does not trap.
        let huge = ScanRule.Line(barcode: "9501101530003", caseGTIN: "19501101530000", caseQty: 100_000)
        #expect(evaluate("0219501101530000" + "3799999999", huge) == .units(9_999_999_900_000))
    }

    @Test func malformedGS1IsRefusedNotGuessed() {
        #expect(evaluate("0109501101530004" + "10L123") == .malformed(.checkDigit(ai: "01", value: "09501101530004")))
        #expect(evaluate("0109501101530003" + "17261341") == .malformed(.badDate(ai: "17", value: "261341")))
        #expect(evaluate("0109501101530003" + "10L123" + gs) == .units(1))  // a trailing GS is harmless
        #expect(evaluate("0105901234123457") == .otherItem)  // well-formed, another GTIN
    }
}
