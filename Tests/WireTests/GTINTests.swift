import Testing

@testable import Wire

@Suite struct GTINTests {
    @Test func upcAAndEAN13FormsAreTheSameItem() {
        #expect(GTIN.normalised("036000291452") == "0036000291452")
        #expect(GTIN.sameItem("036000291452", "0036000291452"))
        #expect(!GTIN.sameItem("036000291452", "5901234123457"))
        #expect(GTIN.normalised("ABC") == nil)
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
