import Imaging
import TestSupport
import Testing

@testable import Scanning

/// The try-harder retry passes: each one reads a code the first look misses, in an image made here.
@Suite struct TryHarderTests {
    let fast = BarcodeReader()
    let tryHarder = BarcodeReader(options: ReaderOptions(tryHarder: true))

    func rendered(_ digits: String) -> GreyImage {
        let drawn = BarcodeRenderer.ean13(digits)
        return GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
    }

    @Test func aLightOnDarkCodeIsReadInverted() throws {
        let image = rendered("590123412345").inverted()
        #expect(fast.read(image).isEmpty)
        #expect(tryHarder.read(image).map(\.text) == ["5901234123457"])
    }

    @Test func aWashedOutCodeIsReadContrastStretched() throws {
        // Black and white squeezed into 6 grey levels, as from a glare-washed label.
        var image = rendered("590123412345")
        image.pixels = image.pixels.map { 125 + $0 / 51 }
        #expect(fast.read(image).isEmpty)
        #expect(tryHarder.read(image).map(\.text) == ["5901234123457"])
    }

    @Test func anImageWithNoCodeStaysEmptyAfterEveryPass() {
        var noise = GreyImage(width: 64, height: 48, filledWith: 200)
        for index in noise.pixels.indices where index % 7 == 0 { noise.pixels[index] = 30 }
        #expect(tryHarder.read(noise).isEmpty)
    }

    @Test func aLoneAddOnIsDroppedAndAnAddOnBesideItsMainCodeIsKept() {
        func code(_ symbology: Symbology, _ text: String) -> Barcode {
            Barcode(symbology: symbology, payload: Array(text.utf8), quality: 1, points: [], orientation: .up)
        }
        let book = [code(.ean13, "9780735200449"), code(.ean5, "51299")]
        #expect(LoneAddOnGuard.apply(book) == book)
        #expect(LoneAddOnGuard.apply([code(.ean2, "17"), code(.ean5, "12345")]).isEmpty)
        #expect(LoneAddOnGuard.apply([code(.ean2, "12"), code(.qrcode, "hi")]).map(\.symbology) == [.qrcode])
    }

    @Test func contrastStretchMapsTheRangeToFullScaleAndLeavesFlatImagesAlone() {
        let image = GreyImage(width: 4, height: 1, pixels: [100, 110, 120, 140])
        #expect(image.contrastStretched().pixels == [0, 63, 127, 255])
        let flat = GreyImage(width: 4, height: 1, filledWith: 90)
        #expect(flat.contrastStretched() == flat)
        #expect(image.inverted().pixels == [155, 145, 135, 115])
    }
}

/// Add-ons joined to their nearest main code when asked.
@Suite struct AddOnJoiningTests {
    func code(_ symbology: Symbology, _ text: String, at x: Int) -> Barcode {
        Barcode(
            symbology: symbology, payload: Array(text.utf8), quality: 1,
            points: [.init(x: x, y: 0), .init(x: x + 10, y: 0), .init(x: x + 10, y: 10), .init(x: x, y: 10)],
            orientation: .up)
    }

    @Test func eachAddOnJoinsTheNearestMainCodeWithNoSpace() {
        let codes = [
            code(.ean13, "9780735200449", at: 0), code(.qrcode, "hi", at: 500), code(.upca, "036000291452", at: 1000),
            code(.ean5, "51299", at: 40), code(.ean2, "07", at: 1040),
        ]
        let joined = AddOnJoining.join(codes)
        #expect(joined.map(\.text) == ["978073520044951299", "hi", "03600029145207"])
        #expect(joined.map(\.symbology) == [.ean13, .qrcode, .upca])
        #expect(joined.first?.points.map(\.x).max() == 50)  // the outline takes in the add-on
    }

    @Test func aSecondAddOnForOneMainCodeStaysOnItsOwn() {
        let joined = AddOnJoining.join([
            code(.ean13, "9780735200449", at: 0), code(.ean5, "51299", at: 40), code(.ean2, "07", at: 80),
        ])
        #expect(joined.map(\.text) == ["978073520044951299", "07"])
    }
}
