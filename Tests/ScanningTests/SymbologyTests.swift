import Testing

@testable import Scanning

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
