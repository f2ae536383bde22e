import Testing

@testable import Scanning

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

@Suite struct SymbologyTests {
    @Test func parsesZBarConfigNames() throws {
        #expect(try Symbology.parseList("ean13,upca, code128,qrcode") == [.ean13, .upca, .code128, .qrcode])
        #expect(try Symbology.parseList("all") == Set(Symbology.allCases))
        #expect(throws: SymbologyListError(name: "ean14")) { try Symbology.parseList("ean13,ean14") }
    }

    @Test func namesMatchZBar() {
        #expect(Symbology.ean13.displayName == "EAN-13")
        #expect(Symbology(displayName: "QR-Code") == .qrcode)
        #expect(Symbology(displayName: "I2/5") == .i25)
        #expect(!Symbology.defaults.contains(.isbn13))
        #expect(Symbology.defaults.contains(.upca) && Symbology.defaults.contains(.upce))
    }
}
