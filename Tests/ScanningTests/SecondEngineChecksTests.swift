import Imaging
import TestSupport
import Testing

@testable import Scanning

/// zxing-cpp's check of a weak EAN/UPC reading and its last QR looks (issue 38), on images made here.
@Suite struct SecondEngineChecksTests {
    let reader = BarcodeReader(options: ReaderOptions(tryHarder: true))
    /// A reader whose only looks after ZBar's first are zxing-cpp's: no retry pass, no angled look.
    let engineOnly = BarcodeReader(options: ReaderOptions(tryHarder: true, retryPasses: [], angledLook: false))
    let qrText = "https://scanpick.example/pick/A1?batch=417&qty=2"

    func drawn(_ digits: String) -> GreyImage {
        let drawn = BarcodeRenderer.ean13(digits, moduleWidth: 3, height: 80)
        return GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
    }

    /// What ZBar's first look might have read: `text` as EAN-13 on `lines` scan lines, its outline
    /// a thin band across a drawn code's middle, or from `left` to `left` + 260.
    func zbarReading(_ text: String, lines: Int, _ symbology: Symbology = .ean13, left: Int = 20) -> Barcode {
        Barcode(
            symbology: symbology, payload: Array(text.utf8), quality: lines,
            points: [
                .init(x: left, y: 38), .init(x: left + 260, y: 38), .init(x: left + 260, y: 42), .init(x: left, y: 42),
            ],
            orientation: .up)
    }

    func qrCode() throws -> GreyImage {
        try ImageLoader().load(path: Repository.sample("clean/qrcode.png"))
    }

    @Test func aWeakEANReadingIsReplacedByZXingCppsReadingOfAnotherCode() throws {
        let picture = drawn("590123412345")
        let checked = reader.crossChecked([zbarReading("4006381333931", lines: 5)], in: picture)
        let code = try #require(checked.first)
        #expect(checked.count == 1)
        #expect(code.symbology == .ean13 && code.text == "5901234123457")
        #expect(!code.points.isEmpty)
    }

    @Test func aReadingOnEnoughLinesOrOneZXingCppAgreesWithIsKept() {
        let picture = drawn("590123412345")
        let strong = zbarReading("4006381333931", lines: BarcodeReader.crossCheckedBelowLines)
        #expect(reader.crossChecked([strong], in: picture) == [strong])
        let confirmed = zbarReading("5901234123457", lines: 3)
        #expect(reader.crossChecked([confirmed], in: picture) == [confirmed])
        let blank = GreyImage(width: 300, height: 100, filledWith: 255)
        let unconfirmed = zbarReading("4006381333931", lines: 3)
        #expect(reader.crossChecked([unconfirmed], in: blank) == [unconfirmed])
    }

    /// With add-ons joined, ZBar's reading carries the add-on's digits after its own: zxing-cpp
    /// (which reads no add-on here) is compared with the code's own digits, and the add-on stays.
    @Test func aJoinedAddOnStaysWhetherZXingCppAgreesOrNot() {
        let picture = drawn("590123412345")
        let joining = BarcodeReader(options: ReaderOptions(tryHarder: true, joinsAddOns: true))
        let agreed = zbarReading("5901234123457" + "51299", lines: 5)
        #expect(joining.crossChecked([agreed], in: picture) == [agreed])
        let replaced = joining.crossChecked([zbarReading("4006381333931" + "12", lines: 5)], in: picture)
        #expect(replaced.map(\.text) == ["590123412345712"])
        #expect(replaced.map(\.symbology) == [.ean13])
    }

    /// zxing-cpp reads one code of the picture: not taken for a weak reading elsewhere, nor beside
    /// an ISBN ZBar read (zxing-cpp reports an ISBN as EAN-13, and it may be that one it read).
    @Test func zxingCppsReadingOfAnotherPlaceOrBesideAnISBNIsNotTaken() {
        let picture = drawn("978073520044")
        let elsewhere = zbarReading("5901234123457", lines: 5, left: 2000)
        #expect(reader.crossChecked([elsewhere], in: picture) == [elsewhere])
        let withISBN = BarcodeReader(options: ReaderOptions(symbologies: [.ean13, .isbn13], tryHarder: true))
        let codes = [zbarReading("5901234123457", lines: 5), zbarReading("9780735200449", lines: 30, .isbn13)]
        #expect(withISBN.crossChecked(codes, in: picture) == codes)
        #expect(reader.crossChecked([codes[0]], in: picture).map(\.text) == ["9780735200449"])
    }

    /// ZBar's outline of a weak reading can be two points at one end of the code (as in the
    /// corpus's `upca-2/38`), or a short band off its middle: zxing-cpp's reading of the code,
    /// across its width, lies on it all the same.
    @Test func aWeakReadingsOutlineAtOneEndOfTheCodeIsTheCodesPlace() {
        let picture = drawn("590123412345")
        let twoPoints = Barcode(
            symbology: .ean13, payload: Array("4006381333931".utf8), quality: 2,
            points: [.init(x: 262, y: 70), .init(x: 270, y: 72)], orientation: .up)
        #expect(reader.crossChecked([twoPoints], in: picture).map(\.text) == ["5901234123457"])
        let offMiddle = Barcode(
            symbology: .ean13, payload: Array("4006381333931".utf8), quality: 3,
            points: [.init(x: 200, y: 2), .init(x: 280, y: 2), .init(x: 280, y: 4), .init(x: 200, y: 4)],
            orientation: .up)
        #expect(reader.crossChecked([offMiddle], in: picture).map(\.text) == ["5901234123457"])
    }

    @Test func anAddOnStaysBesideTheReplacedCodeAndTwoCodesAreNotChecked() {
        let picture = drawn("590123412345")
        let addOn = zbarReading("12", lines: 3, .ean2)
        let checked = reader.crossChecked([zbarReading("4006381333931", lines: 5), addOn], in: picture)
        #expect(checked.map(\.text) == ["5901234123457", "12"])
        let two = [zbarReading("4006381333931", lines: 5), zbarReading("9780201379624", lines: 5)]
        #expect(reader.crossChecked(two, in: picture) == two)
    }

    /// The sample QR code cropped to its modules and drawn twice its size (modules of 13–14 pixels,
    /// no quiet zone), each row and each column shifted by up to `jitter` pixels (the same every
    /// run): big modules with rough edges, as in a coarse print.
    func roughQRCode(jitter: Int, seed: UInt64) throws -> GreyImage {
        let qr = try qrCode()
        let dark = qr.pixels.indices.filter { qr.pixels[$0] < 128 }
        let xs = dark.map { $0 % qr.width }
        let ys = dark.map { $0 / qr.width }
        let left = try #require(xs.min())
        let top = try #require(ys.min())
        let modules = qr.cropped(
            x: left, y: top, width: try #require(xs.max()) - left + 1, height: try #require(ys.max()) - top + 1)
        var state = seed
        func shift() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(2 * jitter + 1)) - jitter
        }
        let (width, height) = (2 * modules.width, 2 * modules.height)
        let rowShifts = (0..<height).map { _ in shift() }
        let columnShifts = (0..<width).map { _ in shift() }
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let sourceX = min(width - 1, max(0, x + rowShifts[y])) / 2
                let sourceY = min(height - 1, max(0, y + columnShifts[x])) / 2
                pixels[y * width + x] = modules.pixels[sourceY * modules.width + sourceX] < 128 ? 0 : 255
            }
        }
        return GreyImage(width: width, height: height, pixels: pixels)
    }

    /// The sample QR code shrunk to `size` × `size` (each pixel the mean of the block it covers),
    /// then blurred twice (σ ≈ 1.4): small and soft.
    func softQRCode(size: Int) throws -> GreyImage {
        let qr = try qrCode()
        var pixels = [UInt8](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let (x0, y0) = (x * qr.width / size, y * qr.height / size)
                let (x1, y1) = (max(x0 + 1, (x + 1) * qr.width / size), max(y0 + 1, (y + 1) * qr.height / size))
                var sum = 0
                for row in y0..<y1 {
                    for column in x0..<x1 { sum += Int(qr.pixels[row * qr.width + column]) }
                }
                pixels[y * size + x] = UInt8(sum / ((x1 - x0) * (y1 - y0)))
            }
        }
        return GreyImage(width: size, height: size, pixels: pixels).blurred().blurred()
    }

    /// No look but the last QR looks reads `image`: neither zxing-cpp's look at the whole picture
    /// nor any of ZBar's.
    func readByTheLastQRLooksOnly(_ image: GreyImage) throws -> Barcode {
        #expect(ZXingReader.read(image, looking: [.qrcode]) == nil)
        #expect(BarcodeReader(options: ReaderOptions(tryHarder: true, secondEngine: false)).read(image).isEmpty)
        let found = reader.read(image)
        #expect(found.count == 1)
        let code = try #require(found.first)
        #expect(code.symbology == .qrcode && code.text == qrText)
        #expect(code.points.allSatisfy { (0..<image.width).contains($0.x) && (0..<image.height).contains($0.y) })
        return code
    }

    @Test func aQRCodeOfBigRoughModulesIsReadHalvedWithItsOutlineScaledBack() throws {
        let rough = try roughQRCode(jitter: 4, seed: 2)
        #expect(ZXingReader.read(rough.halved(), looking: [.qrcode]) != nil)
        let code = try readByTheLastQRLooksOnly(rough)
        // The outline spans the code, not the half-size picture's quarter of it.
        #expect(code.points.contains { $0.x > rough.width * 3 / 4 })
        #expect(code.points.contains { $0.y > rough.height * 3 / 4 })
    }

    @Test func aSmallSoftQRCodeIsReadSharpened() throws {
        let soft = try softQRCode(size: 120)
        #expect(ZXingReader.read(soft.halved(), looking: [.qrcode]) == nil)
        _ = try readByTheLastQRLooksOnly(soft)
    }

    @Test func aLightOnDarkQRCodeIsReadInvertedByZXingCpp() throws {
        let light = try qrCode().inverted()
        #expect(ZXingReader.read(light, looking: [.qrcode]) == nil)
        #expect(engineOnly.read(light).map(\.text) == [qrText])
        let zbarOnly = BarcodeReader(
            options: ReaderOptions(tryHarder: true, retryPasses: [], secondEngine: false, angledLook: false))
        #expect(zbarOnly.read(light).isEmpty)
    }

    @Test func aBigPictureGetsNoLastQRLook() throws {
        let light = try qrCode().inverted().padded(by: 120)  // 486 × 486: over 0.2 megapixels
        #expect(light.width * light.height > BarcodeReader.qrLookLimit)
        #expect(engineOnly.secondEngineQRLook(light).isEmpty)
    }
}
