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

    @Test func checksCheckDigits() {
        #expect(GTIN.hasValidCheckDigit("5901234123457"))
        #expect(!GTIN.hasValidCheckDigit("5901234123458"))
        #expect(GTIN.hasValidCheckDigit("96385074"))
        #expect(!GTIN.hasValidCheckDigit("123"))
    }
}
