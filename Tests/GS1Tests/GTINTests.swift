import Testing

@testable import GS1

@Suite struct GTINTests {
    @Test func upcAAndEAN13FormsAreTheSameItem() {
        #expect(GTIN.normalised("036000291452") == "0036000291452")
        #expect(GTIN.sameItem("036000291452", "0036000291452"))
        #expect(!GTIN.sameItem("036000291452", "5901234123457"))
        #expect(GTIN.normalised("ABC") == nil)
    }

    @Test func aDataBarsGTIN14NamesTheSameItemAsItsGTIN13() {
        // DataBar reads as AI 01 + GTIN-14; indicator digit 0 is the item itself.
        #expect(GTIN.item("0100012345678905") == "0012345678905")
        #expect(GTIN.sameItem("0100012345678905", "012345678905"))  // the item's UPC-A
        #expect(GTIN.sameItem("00012345678905", "0012345678905"))  // a bare GTIN-14
        // DataBar Expanded on a weighed item: the GTIN, then the weight (and a group separator).
        #expect(GTIN.sameItem("01000123456789053103001750\u{1D}10LOT7", "0012345678905"))
        // Indicator 1: a case of the item, not the item; a wrong check digit names nothing.
        #expect(GTIN.item("0110012345678902") == "10012345678902")
        #expect(!GTIN.sameItem("0110012345678902", "0012345678905"))
        #expect(!GTIN.sameItem("0100012345678904", "0012345678905"))
        #expect(GTIN.item("01ABC") == nil && GTIN.item("0212345678901231") == nil)
    }

    @Test(arguments: [
        ("01234565", "012345000065"), ("04252614", "042100005264"), ("01234531", "012300000451"),
        ("01234145", "012340000015"), ("11234502", "112000003452"), ("00123424", "001200002344"),
    ])
    func expandsUPCE(upce: String, upca: String) {
        #expect(GTIN.upcEToUPCA(upce) == upca)
        #expect(GTIN.hasValidCheckDigit(upca))
    }

    @Test func anAmbiguousEightDigitCodeNamesOneItemOnlyWhenTheReaderSaidWhichItIs() {
        // 01234565: a valid EAN-8, and the UPC-E of 012345000065.
        #expect(!GTIN.sameItem("01234565", "012345000065"))
        #expect(GTIN.sameItem("01234565", "012345000065", firstReadAs: .upcE))
        #expect(!GTIN.sameItem("01234565", "012345000065", firstReadAs: .ean8))
        #expect(GTIN.sameItem("01234565", "0000001234565", firstReadAs: .ean8))
        #expect(!GTIN.sameItem("012345000065", "01234565"))  // the task's 8 digits may be the EAN-8
        // 04252614 is no valid EAN-8 (its check digit would be 0): only the UPC-E reading is left.
        #expect(GTIN.sameItem("04252614", "042100005264"))
        #expect(GTIN.sameItem("96385074", "0000096385074"))  // starts with 9: an EAN-8 only
        // The server, which never knows the symbology, accepts any reading that fits.
        #expect(GTIN.mayBeSameItem("01234565", "012345000065"))
        #expect(GTIN.mayBeSameItem("01234565", "0000001234565"))
        #expect(!GTIN.mayBeSameItem("01234565", "036000291452"))
    }

    @Test func checksCheckDigits() {
        #expect(GTIN.hasValidCheckDigit("5901234123457"))
        #expect(!GTIN.hasValidCheckDigit("5901234123458"))
        #expect(GTIN.hasValidCheckDigit("96385074"))
        #expect(!GTIN.hasValidCheckDigit("123"))
    }
}
