import Imaging
import TestSupport
import Testing

@testable import Scanning

/// The try-harder retry passes: each one reads a code the first look misses, in an image made here.
@Suite struct TryHarderTests {
    let fast = BarcodeReader()
    let tryHarder = BarcodeReader(options: ReaderOptions(tryHarder: true))

    func rendered(_ digits: String, moduleWidth: Int = 3, height: Int = 80) -> GreyImage {
        let drawn = BarcodeRenderer.ean13(digits, moduleWidth: moduleWidth, height: height)
        return GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
    }

    /// `image` shrunk to `size` × `size`, each pixel the mean of the block it covers.
    func areaResized(_ image: GreyImage, to size: Int) -> GreyImage {
        var out = [UInt8](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let x0 = x * image.width / size
                let x1 = max(x0 + 1, (x + 1) * image.width / size)
                let y0 = y * image.height / size
                let y1 = max(y0 + 1, (y + 1) * image.height / size)
                var sum = 0
                for row in y0..<y1 {
                    for column in x0..<x1 { sum += Int(image.pixels[row * image.width + column]) }
                }
                out[y * size + x] = UInt8(sum / ((x1 - x0) * (y1 - y0)))
            }
        }
        return GreyImage(width: size, height: size, pixels: out)
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

    /// A reader that makes only `pass` after its first look.
    func reader(_ pass: BarcodeReader.RetryPass) -> BarcodeReader {
        BarcodeReader(options: ReaderOptions(tryHarder: true, retryPasses: [pass]))
    }

    /// An EAN-13 drawn with `moduleWidth`, with seeded noise of ± `amplitude` grey levels on every pixel.
    func noisy(moduleWidth: Int, amplitude: Int, height: Int = 200) -> GreyImage {
        var image = rendered("590123412345", moduleWidth: moduleWidth, height: height)
        var state: UInt32 = 12345
        for index in image.pixels.indices {
            state = state &* 1_103_515_245 &+ 12345
            let noise = Int((state >> 16) % UInt32(2 * amplitude + 1)) - amplitude
            image.pixels[index] = UInt8(clamping: Int(image.pixels[index]) + noise)
        }
        return image
    }

    @Test func aNoisyBigCodeIsReadHalvedWithItsOutlineInTheOriginalsCoordinates() throws {
        let image = noisy(moduleWidth: 6, amplitude: 100)
        #expect(fast.read(image).isEmpty)
        let found = try #require(reader(.halved).read(image).first)
        #expect(found.text == "5901234123457")
        // The code spans the whole drawing; read from the half-size copy, its outline is scaled back.
        #expect((found.points.map(\.x).max() ?? 0) > image.width * 3 / 4)
    }

    @Test func aNoisierSmallCodeIsReadBlurredAndABigPictureIsNotFiltered() {
        let image = noisy(moduleWidth: 3, amplitude: 140, height: 150)
        #expect(image.width * image.height <= BarcodeReader.RetryPass.smallPictureLimit)
        #expect(fast.read(image).isEmpty)
        #expect(reader(.halved).read(image).isEmpty)
        #expect(reader(.blurred).read(image).map(\.text) == ["5901234123457"])
        let big = noisy(moduleWidth: 6, amplitude: 140)
        #expect(
            !BarcodeReader.RetryPass.blurred.applies(to: big) && !BarcodeReader.RetryPass.sharpened.applies(to: big))
    }

    @Test func aSlightlyBlurredSmallCodeIsReadSharpened() {
        let drawn = rendered("590123412345", moduleWidth: 2, height: 60)
        var image = GreyImage(width: drawn.width + 40, height: drawn.height, filledWith: 255)
        for y in 0..<drawn.height {
            for x in 0..<drawn.width { image.pixels[y * image.width + x + 20] = drawn.pixels[y * drawn.width + x] }
        }
        image = image.blurred()
        #expect(fast.read(image).isEmpty)
        #expect(reader(.sharpened).read(image).map(\.text) == ["5901234123457"])
    }

    @Test func aQRCodeWithModulesUnderTwoPixelsIsReadDoubled() throws {
        let qr = try ImageLoader().load(path: Repository.sampleImages + "/clean/qrcode.png")
        let small = areaResized(qr, to: 52)  // 37 modules with the quiet zone: 1.4 px each
        #expect(fast.read(small).isEmpty)
        let found = try #require(reader(.doubledQROnly).read(small).first)
        #expect(found.text == "https://scanpick.example/pick/A1?batch=417&qty=2")
        #expect(found.points.allSatisfy { $0.x <= small.width && $0.y <= small.height })
    }

    @Test func theDoubledPassReadsNoLinearCodesAndSkipsBigImages() {
        // An EAN-13 whose modules are under a pixel: only interpolation could invent its bars.
        let tiny = areaResized(rendered("590123412345", moduleWidth: 3, height: 285), to: 100)
        #expect(reader(.doubledQROnly).read(tiny).isEmpty)
        let big = GreyImage(width: 401, height: 400, filledWith: 255)
        #expect(!BarcodeReader.RetryPass.doubledQROnly.applies(to: big))
        #expect(BarcodeReader.RetryPass.halved.applies(to: big))
    }

    @Test func aCodeOnePixelTallIsReadThickenedWithItsOutlineInsideThePicture() throws {
        let drawn = rendered("590123412345", moduleWidth: 2, height: 20)
        let row = GreyImage(
            width: drawn.width, height: 1, pixels: Array(drawn.pixels[(10 * drawn.width)..<(11 * drawn.width)]))
        #expect(fast.read(row).isEmpty)
        let found = try #require(reader(.thickened).read(row).first)
        #expect(found.text == "5901234123457")
        #expect(found.points.allSatisfy { $0.y == 0 && (0..<row.width).contains($0.x) })
        #expect(!BarcodeReader.RetryPass.thickened.applies(to: drawn))
        #expect(row.thickened(to: 8).height == 8 && row.thickened(to: 8).width == row.width)
    }

    @Test func aQRCodeOfOnePixelModulesWithNoQuietZoneIsReadPadded() throws {
        // Version 20, 97 modules in 97 pixels, cropped to its modules (scripts/make-sample-images).
        let cropped = try ImageLoader().load(path: Repository.sample("try-harder/qrcode-cropped.png"))
        #expect(fast.read(cropped).isEmpty)
        let found = try #require(reader(.padded).read(cropped).first)
        #expect(found.text == "SCANPICK TOTE 417 BATCH A1 20")
        // The outline is the code's corners in the cropped picture, not in the padded one.
        #expect(found.points.allSatisfy { (0..<cropped.width).contains($0.x) && (0..<cropped.height).contains($0.y) })
        #expect(found.points.contains { $0.x <= 1 && $0.y <= 1 })
        #expect(!BarcodeReader.RetryPass.padded.applies(to: GreyImage(width: 401, height: 400, filledWith: 255)))
    }

    @Test func theContrastPassSkipsPicturesThatAlreadySpanBlackToWhite() {
        #expect(!BarcodeReader.RetryPass.contrastStretched.applies(to: rendered("590123412345")))
        var washed = rendered("590123412345")
        washed.pixels = washed.pixels.map { 100 + $0 / 4 }
        #expect(BarcodeReader.RetryPass.contrastStretched.applies(to: washed))
    }

    @Test func passesHaveCommandLineNames() {
        for pass in BarcodeReader.RetryPass.allCases { #expect(BarcodeReader.RetryPass(name: pass.name) == pass) }
        #expect(BarcodeReader.RetryPass(name: "upscaled") == nil)
        #expect(ReaderOptions().retryPasses == BarcodeReader.RetryPass.standard)
    }

    @Test func aBigPictureIsLookedAtAgainAtHalfSizeWithItsOutlineScaledBack() throws {
        let image = rendered("590123412345", moduleWidth: 6, height: 400).inverted()  // 570 × 400
        #expect(image.width * image.height > BarcodeReader.fullSizeRetryLimit)
        #expect(fast.read(image).isEmpty)
        let found = try #require(tryHarder.read(image).first)
        #expect(found.text == "5901234123457")
        #expect((found.points.map(\.x).max() ?? 0) > image.width * 3 / 4)
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

    @Test func resamplingKeepsLevelsAndGeometry() {
        let blocks = GreyImage(width: 4, height: 3, pixels: [0, 4, 100, 200, 8, 12, 100, 200, 9, 9, 9, 9])
        #expect(blocks.halved() == GreyImage(width: 2, height: 1, pixels: [6, 150]))
        let flat = GreyImage(width: 5, height: 4, filledWith: 77)
        for transformed in [flat.blurred(), flat.sharpened(), flat.doubled()] {
            #expect(transformed.pixels.allSatisfy { $0 == 77 })
        }
        #expect(flat.doubled().width == 10 && flat.doubled().height == 8)
        // One bright pixel spreads by the binomial weights 1-4-6-4-1 (/16) each way.
        var dot = GreyImage(width: 5, height: 5, filledWith: 0)
        dot.pixels[12] = 255
        #expect(Array(dot.blurred().pixels[10..<15]) == [6, 24, 36, 24, 6])  // 255 · 6/16 · (1 4 6 4 1)/16
        // An edge doubled keeps its levels away from it and crosses mid-grey where it was.
        let edge = GreyImage(width: 8, height: 1, pixels: [50, 50, 50, 50, 200, 200, 200, 200])
        let wide = edge.doubled().pixels
        #expect(wide[0..<5].allSatisfy { $0 == 50 } && wide[11..<16].allSatisfy { $0 == 200 })
        #expect(wide[7] < 125 && wide[8] > 125)
        let sharp = edge.sharpened().pixels
        #expect(sharp[3] < 50 && sharp[4] > 200)
    }
}

/// Add-ons joined to their nearest main code when asked.
@Suite struct AddOnJoiningTests {
    func book(addOn: String) -> GreyImage {
        let drawn = BarcodeRenderer.ean13("978073520044", addOn: addOn)
        return GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
    }

    @Test func aDrawnBookCodeReadsAsTwoSymbolsOrJoined() {
        let separate = BarcodeReader().read(book(addOn: "51299"))
        #expect(Set(separate.map(\.text)) == ["9780735200449", "51299"])
        #expect(Set(separate.map(\.symbology)) == [.ean13, .ean5])
        let joined = BarcodeReader(options: ReaderOptions(joinsAddOns: true)).read(book(addOn: "51299"))
        #expect(joined.map(\.text) == ["978073520044951299"])
        let issue = BarcodeReader(options: ReaderOptions(joinsAddOns: true)).read(book(addOn: "07"))
        #expect(issue.map(\.text) == ["978073520044907"])
    }

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
