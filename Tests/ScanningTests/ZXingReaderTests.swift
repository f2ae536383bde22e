import Imaging
import TestSupport
import Testing

@testable import Scanning

/// zxing-cpp, the second engine: what it reads, and that Debian 1.4's aborting assertion stays out of
/// reach (a regression here ends the test process, which fails the run).
@Suite struct ZXingReaderTests {
    func sample(_ name: String) throws -> GreyImage {
        try ImageLoader().load(path: Repository.sample("matrix/" + name))
    }

    @Test func readsWhatZBarLacksWhenAskedAndOnlyThen() throws {
        let asked = BarcodeReader(options: ReaderOptions(symbologies: Symbology.zbarLacks))
        let gs1 = try #require(asked.read(try sample("datamatrix-gs1.png")).first)
        #expect(gs1.symbology == .dataMatrix)
        #expect(gs1.isGS1)
        #expect(gs1.text == "0109501101530003" + "17270101" + "10AB-12\u{1D}" + "21SN0001")
        #expect(gs1.points.count >= 3)
        let plain = try #require(asked.read(try sample("datamatrix.png")).first)
        #expect(plain.text == "PICK-000417/A1" && !plain.isGS1)
        #expect(asked.read(try sample("aztec.png")).map(\.symbology) == [.aztec])
        #expect(asked.read(try sample("pdf417.png")).map(\.text) == ["ORDER 417 LINE A1"])
        #expect(asked.read(try sample("datamatrix-gs1-turned.jpg")).first?.isGS1 == true)
        // By default they are not looked for: ZBar finds nothing, and nothing else looks.
        #expect(BarcodeReader().read(try sample("datamatrix-gs1.png")).isEmpty)
        #expect(BarcodeReader(options: ReaderOptions(tryHarder: true)).read(try sample("aztec.png")).isEmpty)
    }

    @Test func aLinearCodeOnManyRowsOfABigPictureDoesNotAbort() {
        // At least 500 pixels each way: zxing-cpp's multi-symbol search would read it at two scales
        // and compare the two results, which asserts (and aborts) in Debian's build.
        let drawn = BarcodeRenderer.ean13("590123412345", moduleWidth: 6, height: 620)
        let image = GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
        #expect(image.width >= 500 && image.height >= 500)
        let code = ZXingReader.read(image, looking: ZXingReader.readable, minLineCount: 3)
        #expect(code?.symbology == .ean13)
        #expect(code?.text == "5901234123457")
        #expect(ZXingReader.read(image, looking: ZXingReader.readable, rotating: false)?.text == "5901234123457")
    }

    @Test func dataBarIsNeverAskedOfZXing() {
        #expect(!ZXingReader.readable.contains(.databar))
        #expect(!ZXingReader.readable.contains(.databarExpanded))
        let drawn = BarcodeRenderer.ean13("590123412345")
        let image = GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
        #expect(ZXingReader.read(image, looking: [.databar, .databarExpanded]) == nil)
    }

    @Test func emptyAndDegeneratePicturesAreNothingFound() {
        #expect(ZXingReader.read(GreyImage(width: 0, height: 0, pixels: []), looking: ZXingReader.readable) == nil)
        let flat = GreyImage(width: 64, height: 1, pixels: [UInt8](repeating: 255, count: 64))
        #expect(ZXingReader.read(flat, looking: ZXingReader.readable) == nil)
    }
}
