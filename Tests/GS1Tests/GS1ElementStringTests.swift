import Testing

@testable import GS1

/// Element strings from the GS1 General Specifications' examples (GTIN 09501101530003, SSCC
/// 106141412345678908, GLN 9501101020917), in the forms readers and scanners deliver them.
@Suite struct GS1ElementStringTests {
    let gs = "\u{1D}"

    @Test func fixedLengthElementsNeedNoSeparator() throws {
        let data = try GS1ElementString(
            parsing: "0109501101530003" + "17260131" + "15261200" + "10AB-12", referenceYear: 2026)
        #expect(data.elements.map(\.ai.code) == ["01", "17", "15", "10"])
        #expect(data.gtin == "09501101530003")
        #expect(data.lot == "AB-12")
        // (17) is the expiry even with a (15) beside it; (15) alone would be.
        #expect(data.expiry == GS1Date(year: 2026, month: 1, day: 31))
        #expect(
            try GS1ElementString(parsing: "15261200", referenceYear: 2026).expiry
                == GS1Date(year: 2026, month: 12, day: 31))
    }

    @Test func variableLengthElementsEndAtAGroupSeparatorOrTheEnd() throws {
        // (37) counts the items of a (02): a logistic unit's label.
        let data = try GS1ElementString(
            parsing: "0209501101530003" + "10AB-12" + gs + "21SN0001" + gs + "3710" + gs + "17270101",
            referenceYear: 2026)
        #expect(data.containedGTIN == "09501101530003")
        #expect(data.lot == "AB-12")
        #expect(data.serial == "SN0001")
        #expect(data.count == 10)
        #expect(data.expiry == GS1Date(year: 2027, month: 1, day: 1))
        #expect(data.elements.map(\.ai.code) == ["02", "10", "21", "37", "17"])
    }

    /// A second (10) or (17) would hide behind the first (another lot, an expired date passing the
    /// checks), and (37) counts only a (02): such labels are malformed, never read by the first copy.
    @Test func repeatedAIsAndContradictoryPairsAreMalformed() {
        let item = "0109501101530003"
        let cases: [(String, GS1Error)] = [
            (item + "10L123" + gs + "10L999", .repeatedAI("10")),
            (item + "17300101" + "17200101", .repeatedAI("17")),
            ("0209501101530003" + "373" + gs + "374", .repeatedAI("37")),
            (item + "0209501101530003", .invalidPair("(01) and (02) never stand together")),
            (item + "375", .invalidPair("a count (37) needs the (02) it counts")),
        ]
        for (text, problem) in cases {
            #expect(throws: problem, "\(text)") { try GS1ElementString(parsing: text, referenceYear: 2026) }
        }
    }

    @Test func symbologyIdentifiersBracketsAndALeadingFNC1AreTheSameData() throws {
        let bare = try GS1ElementString(parsing: "0109501101530003" + "10L123", referenceYear: 2026)
        for form in [
            "]d20109501101530003" + "10L123", "]C10109501101530003" + "10L123", "]Q30109501101530003" + "10L123",
            "]z10109501101530003" + "10L123", "]J10109501101530003" + "10L123", "]e00109501101530003" + "10L123",
            gs + "0109501101530003" + "10L123", "(01)09501101530003(10)L123",
        ] {
            #expect(try GS1ElementString(parsing: form, referenceYear: 2026) == bare, "\(form)")
        }
    }

    @Test func theSpecificationsOtherAIsParse() throws {
        let data = try GS1ElementString(
            parsing: "00106141412345678908" + "02" + "09501101530003" + "3103000123" + "3922" + "0299" + gs + "400"
                + "PO-77" + gs + "410" + "9501101020917" + "414" + "9501101020917" + "11" + "260101" + "13" + "260102"
                + "30" + "5",
            referenceYear: 2026)
        #expect(data["00"] == "106141412345678908")
        #expect(data.containedGTIN == "09501101530003")
        #expect(data["3103"] == "000123")
        #expect(data["3922"] == "0299")
        #expect(data["400"] == "PO-77")
        #expect(data["410"] == "9501101020917")
        #expect(data["414"] == "9501101020917")
        #expect(data.date("11") == GS1Date(year: 2026, month: 1, day: 1))
        #expect(data.date("13") == GS1Date(year: 2026, month: 1, day: 2))
        #expect(data["30"] == "5")
        for ai in ["311", "312", "313", "314", "315", "316", "310"] {
            #expect(try GS1ElementString(parsing: ai + "2001250", referenceYear: 2026)[ai + "2"] == "001250")
        }
        for ai in ["411", "412", "413"] {
            #expect(try GS1ElementString(parsing: ai + "9501101020917", referenceYear: 2026)[ai] == "9501101020917")
        }
    }

    /// The General Specifications' own example keys as scanners transmit them (section 7.8: the
    /// symbology identifier, then the element strings, a variable-length one ended by FNC1 sent as
    /// GS): GTIN 95012345678903 with a net weight of 0.123 kg; SSCC 106141412345678908 with the
    /// GTIN and count of what the pallet holds; a ship-to GLN 9501101020917 with a purchase order.
    @Test func theSpecificationsExamplesReadAsTheyAreTransmitted() throws {
        let item = try GS1ElementString(parsing: "]C1" + "0195012345678903" + "3103000123", referenceYear: 2026)
        #expect(item.gtin == "95012345678903")
        #expect(item["3103"] == "000123")
        let pallet = try GS1ElementString(
            parsing: "]C1" + "00106141412345678908" + "02" + "95012345678903" + "37" + "20" + gs + "10" + "ABC",
            referenceYear: 2026)
        #expect(pallet["00"] == "106141412345678908")
        #expect(pallet.containedGTIN == "95012345678903")
        #expect(pallet.count == 20)
        #expect(pallet.lot == "ABC")
        let shipTo = try GS1ElementString(parsing: "]C1" + "4109501101020917" + "400" + "12345", referenceYear: 2026)
        #expect(shipTo["410"] == "9501101020917")
        #expect(shipTo["400"] == "12345")
    }

    /// Every key with a check digit is checked: a mistyped or misread SSCC, GTIN or GLN is
    /// malformed, never taken for another one.
    @Test func everyCheckDigitIsChecked() {
        let cases: [(String, String)] = [
            ("00", "106141412345678909"), ("01", "95012345678904"), ("02", "95012345678900"),
            ("410", "9501101020910"), ("411", "9501101020911"), ("412", "9501101020912"),
            ("413", "9501101020913"), ("414", "9501101020914"),
        ]
        for (ai, value) in cases {
            #expect(throws: GS1Error.checkDigit(ai: ai, value: value), "(\(ai))") {
                try GS1ElementString(parsing: ai + value, referenceYear: 2026)
            }
        }
    }

    @Test func datesAreDates() throws {
        // Day 00: the last day of the month (a leap February too).
        #expect(
            try GS1ElementString(parsing: "17280200", referenceYear: 2026).expiry
                == GS1Date(year: 2028, month: 2, day: 29))
        #expect(
            try GS1ElementString(parsing: "15261100", referenceYear: 2026).expiry
                == GS1Date(year: 2026, month: 11, day: 30))
        // The century: at most 49 years back, 50 ahead of the reference year.
        #expect(try GS1ElementString(parsing: "17760101", referenceYear: 2026).expiry?.year == 2076)
        #expect(try GS1ElementString(parsing: "17770101", referenceYear: 2026).expiry?.year == 1977)
        #expect(try GS1ElementString(parsing: "17990101", referenceYear: 2051).expiry?.year == 2099)
        #expect(try GS1ElementString(parsing: "17000101", referenceYear: 2099).expiry?.year == 2100)
        #expect(GS1Date(iso: "2027-01-01")?.description == "2027-01-01")
        #expect(GS1Date(iso: "2027-02-29") == nil)
        #expect(GS1Date(iso: "2027-1-01") == nil)
        #expect(GS1Date(iso: "２０２７-01-01") == nil)
    }

    @Test func malformedDataIsReportedNeverGuessed() {
        let cases: [(String, GS1Error)] = [
            ("0109501101530004", .checkDigit(ai: "01", value: "09501101530004")),
            ("01095011015300", .wrongLength(ai: "01", expected: "14", found: 12)),
            ("17261301", .badDate(ai: "17", value: "261301")),
            ("17260230", .badDate(ai: "17", value: "260230")),
            ("0109501101530003" + "99", .wrongLength(ai: "99", expected: "1–90", found: 0)),
            ("10" + String(repeating: "A", count: 21), .wrongLength(ai: "10", expected: "1–20", found: 21)),
            ("10L 1", .badCharacters(ai: "10", value: "L 1")),
            ("3712A", .notDigits(ai: "37", value: "12A")),
            ("0109501101530003" + "88X", .unknownAI("88X", at: 16)),
            ("", .empty),
            ("(01)0950110153000", .wrongLength(ai: "01", expected: "14", found: 13)),
            ("(01", .badBrackets),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try GS1ElementString(parsing: text, referenceYear: 2026) }
        }
        // A fixed-length AI outside the predefined-length table must end with GS before another AI.
        #expect(throws: GS1Error.missingSeparator(ai: "402")) {
            try GS1ElementString(parsing: "402" + "95011010209170007" + "10L1", referenceYear: 2026)
        }
        #expect(throws: GS1Error.tooLong(512)) {
            try GS1ElementString(parsing: "10" + String(repeating: "1", count: 600), referenceYear: 2026)
        }
    }

    @Test func onlyCodesThatLookLikeGS1AreReadAsGS1() {
        #expect(GS1ElementString.looksLikeGS1("0109501101530003"))
        #expect(GS1ElementString.looksLikeGS1("]d2" + "0109501101530003"))
        #expect(GS1ElementString.looksLikeGS1("(01)09501101530003"))
        #expect(GS1ElementString.looksLikeGS1("10L1" + gs + "0109501101530003"))
        #expect(!GS1ElementString.looksLikeGS1("9501101530003"))  // an EAN-13
        #expect(!GS1ElementString.looksLikeGS1("09501101530003"))  // a bare GTIN-14
        #expect(!GS1ElementString.looksLikeGS1("PICK-000417/A1"))
    }
}
