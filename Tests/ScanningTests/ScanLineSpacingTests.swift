import Imaging
import TestSupport
import Testing

@testable import Scanning

/// The camera's look scans every other line (``ReaderOptions/camera(symbologies:)``): it must read
/// what the still look reads.
@Suite struct ScanLineSpacingTests {
    @Test func theCameraSkipsLinesAndStillPicturesDoNot() {
        #expect(ReaderOptions.camera().scanLineSpacing == ReaderOptions.cameraScanLineSpacing)
        #expect(ReaderOptions.cameraScanLineSpacing > 1)
        #expect(ReaderOptions().scanLineSpacing == 1)
    }

    @Test func aSpacingOutOfRangeIsClampedHoweverItIsSet() {
        #expect(ReaderOptions(scanLineSpacing: 0).scanLineSpacing == 1)
        #expect(ReaderOptions(scanLineSpacing: -5).scanLineSpacing == 1)
        #expect(ReaderOptions(scanLineSpacing: 1000).scanLineSpacing == ReaderOptions.maxScanLineSpacing)
        var options = ReaderOptions.camera()
        options.scanLineSpacing = 0
        #expect(options.scanLineSpacing == 1)
        options.scanLineSpacing = Int.max
        #expect(options.scanLineSpacing == ReaderOptions.maxScanLineSpacing)
    }

    /// `pictures` side by side on a white ground, 40 pixels apart.
    func sideBySide(_ pictures: [GreyImage]) -> GreyImage {
        let width = pictures.reduce(40) { $0 + $1.width + 40 }
        let height = (pictures.map(\.height).max() ?? 0) + 80
        var canvas = GreyImage(width: width, height: height, filledWith: 255)
        var left = 40
        for picture in pictures {
            for y in 0..<picture.height {
                for x in 0..<picture.width { canvas[left + x, 40 + y] = picture[x, y] }
            }
            left += picture.width + 40
        }
        return canvas
    }

    func sample(_ file: String) throws -> GreyImage { try ImageLoader().load(path: Repository.sample(file)) }

    /// Two QR codes in view (a tote's and an item's), a QR code beside a Data Matrix asked for, and a
    /// QR code seen in a mirror: the camera reads what a still picture's look reads.
    @Test func severalCodesInOneFrameAndAMirroredQRCodeReadAsInAStill() throws {
        let qr = try sample("clean/qrcode.png")
        let other = try sample("clean/qrcode-eci.png")
        var mirrored = qr
        for y in 0..<qr.height {
            for x in 0..<qr.width { mirrored[x, y] = qr[qr.width - 1 - x, y] }
        }
        let withMatrix = Symbology.defaults.union([.dataMatrix])
        for (picture, symbologies, expected) in [
            (sideBySide([qr, other]), Symbology.defaults, 2),
            (sideBySide([qr, try sample("matrix/datamatrix.png")]), withMatrix, 2),
            (sideBySide([mirrored]), Symbology.defaults, 1),
        ] {
            let still = BarcodeReader(options: ReaderOptions(symbologies: symbologies)).read(picture)
            let camera = BarcodeReader(options: .camera(symbologies: symbologies)).read(picture)
            #expect(still.count == expected)
            #expect(Set(camera.map(\.text)) == Set(still.map(\.text)))
        }
    }

    /// A small GS1 QR code turned 40° (zint `-b 58 --gs1 --scale=1`, enlarged 3×, turned): ZBar
    /// misses it between skipped lines, zxing-cpp finds it but cuts its text after the literal %,
    /// and ZBar reading the place at every line gives the whole element string.
    @Test func aGS1QRCodeBetweenTheLinesIsReadWholeWhereZXingFoundIt() throws {
        let image = try ImageLoader().load(
            path: Repository.root + "/Tests/ScanningTests/Fixtures/qrcode-gs1-percent-turned.png")
        let whole = "010950110153000310AB%12\u{1D}21XYZ"
        let camera = BarcodeReader(options: .camera()).read(image)
        #expect(camera.map(\.text) == [whole])
        #expect(camera.first?.isGS1 == true)
        if let zxing = ZXingReader.read(image, looking: [.qrcode]) {
            #expect(zxing.text == whole || ZXingReader.mayBeCutShort(zxing))
        }
        #expect(BarcodeReader().read(image).map(\.text) == [whole])
    }

    @Test(arguments: [
        "clean/ean13.png", "clean/ean8.png", "clean/upca.png", "clean/upce.png", "clean/code39.png",
        "clean/code128.png", "clean/itf.png", "clean/qrcode.png", "clean/qrcode-eci.png",
        "degraded/ean13-small.jpg", "degraded/code128-small.jpg", "degraded/qrcode-small.jpg",
        "degraded/qrcode-rotated.jpg", "degraded/upca-blurred.png", "degraded/ean8-lowcontrast.pgm",
    ])
    func theCameraReadsWhatTheStillLookReads(file: String) throws {
        let image = try ImageLoader().load(path: Repository.sample(file))
        let still = BarcodeReader().read(image)
        let camera = BarcodeReader(options: .camera()).read(image)
        #expect(!still.isEmpty)
        #expect(camera.map(\.symbology) == still.map(\.symbology))
        #expect(camera.map(\.text) == still.map(\.text))
    }

    /// ZBar's QR finder loses a small turned code between skipped lines; the camera still reads it.
    @Test(arguments: [15.0, 30.0, 45.0])
    func aSmallTurnedQRCodeIsReadWithLinesSkipped(degrees: Double) throws {
        let code = try ImageLoader().load(path: Repository.sample("clean/qrcode.png"))
        let turned = code.halved().rotated(byDegrees: degrees).padded(by: 40)
        let read = BarcodeReader(options: .camera()).read(turned)
        #expect(read.map(\.symbology) == [.qrcode])
        #expect(read.first?.text == "https://scanpick.example/pick/A1?batch=417&qty=2")
    }
}

extension ScanLineSpacingTests {
    /// libzbar drops EAN/UPC and DataBar reads seen on fewer than 4 lines when it scans every line,
    /// not when it skips lines: the camera's look drops them itself.
    @Test func withLinesSkippedACheckDigitCodeMustBeSeenOnFourLines() {
        func code(_ symbology: Symbology, quality: Int) -> Barcode {
            var barcode = Barcode(symbology: symbology, text: "5901234123457")
            barcode.quality = quality
            return barcode
        }
        let codes = [
            code(.ean13, quality: 1), code(.databar, quality: 3), code(.codabar, quality: 2), code(.upca, quality: 4),
            code(.code128, quality: 1), code(.qrcode, quality: 1),
        ]
        let kept = BarcodeReader.seenOnEnoughLines(codes, spacing: ReaderOptions.cameraScanLineSpacing).map(\.symbology)
        #expect(kept == [.codabar, .upca, .code128, .qrcode])  // libzbar drops Codabar itself
        #expect(BarcodeReader.seenOnEnoughLines(codes, spacing: 1) == codes)
    }

    /// `--scan-line-spacing 2 --try-harder`: the retry passes look at every line, so libzbar's own
    /// rule holds for what they read. EAN-13 strips light on dark: 4 rows are read by the inverted
    /// pass as a reader looking at every line reads them (on 7 lines); 2 rows, which libzbar
    /// refuses at every line, by neither (the pass skipping lines read them on 1).
    @Test(arguments: [4, 2])
    func theRetryPassesLookAtEveryLine(rows: Int) throws {
        let ean = try ImageLoader().load(path: Repository.sample("clean/ean13.png"))
        let strip = ean.cropped(x: 0, y: ean.height / 2, width: ean.width, height: rows)
        var picture = GreyImage(width: ean.width, height: 40, filledWith: 0)
        for y in 0..<strip.height {
            for x in 0..<strip.width { picture[x, 17 + y] = 255 - strip[x, y] }
        }
        let everyLine = BarcodeReader(options: ReaderOptions(tryHarder: true)).read(picture)
        #expect(everyLine.map(\.text) == (rows == 4 ? ["5901234123457"] : []))
        let skipping = BarcodeReader(options: ReaderOptions(tryHarder: true, scanLineSpacing: 2)).read(picture)
        #expect(skipping.map(\.text) == everyLine.map(\.text))
        #expect(skipping.map(\.quality) == everyLine.map(\.quality))
    }
}

/// A try-harder read of a big still picture looks first as the camera does, every other line, and
/// at every line when an EAN/UPC reading is weak.
@Suite struct TryHarderSkimTests {
    let tryHarder = BarcodeReader(options: ReaderOptions(tryHarder: true))
    let fast = BarcodeReader()

    /// `code` in the middle of a white picture of `width` × `height`.
    func placed(_ code: GreyImage, width: Int = 800, height: Int = 600) -> GreyImage {
        var canvas = GreyImage(width: width, height: height, filledWith: 255)
        let (left, top) = ((width - code.width) / 2, (height - code.height) / 2)
        for y in 0..<code.height {
            for x in 0..<code.width { canvas[left + x, top + y] = code[x, y] }
        }
        return canvas
    }

    func sample(_ file: String) throws -> GreyImage { try ImageLoader().load(path: Repository.sample(file)) }

    @Test func aBigPictureIsSkimmedAndReadsWhatEveryLineReads() throws {
        for file in ["clean/ean13.png", "clean/code128.png", "clean/qrcode.png"] {
            let picture = placed(try sample(file))
            #expect(picture.width * picture.height > BarcodeReader.fullSizeRetryLimit)
            let skimmed = tryHarder.read(picture)
            let everyLine = fast.read(picture)
            #expect(skimmed.map(\.text) == everyLine.map(\.text), "\(file)")
            #expect(!skimmed.isEmpty, "\(file)")
        }
        // Seen on about half the lines: the skim's reading was taken.
        let ean = placed(try sample("clean/ean13.png"))
        #expect(try #require(tryHarder.read(ean).first).quality < fast.read(ean)[0].quality)
    }

    /// A DataBar 6 rows tall (a 640 × 480 picture made with zint) crosses 3 of the skim's lines, too
    /// few to take it: every line is looked at then, and `--try-harder` reads what the fast look
    /// reads.
    @Test func aCodeTheSkimSeesOnTooFewLinesIsReadAtEveryLine() throws {
        let picture = try ImageLoader().load(
            path: Repository.root + "/Tests/ScanningTests/Fixtures/databar-six-rows.png")
        #expect(picture.width * picture.height > BarcodeReader.fullSizeRetryLimit)
        #expect(BarcodeReader(options: .camera()).read(picture).isEmpty)
        #expect(fast.read(picture).map(\.text) == ["0109501101530003"])
        let read = tryHarder.read(picture)
        #expect(read.map(\.symbology) == [.databar])
        #expect(read.map(\.text) == ["0109501101530003"])
    }

    /// An EAN-13 of 4 rows beside a big Code 128: the skim takes the EAN-13 only at every line.
    @Test func aSmallCodeBesideABigOneIsRead() throws {
        let ean = try sample("clean/ean13.png")
        let strip = ean.cropped(x: 0, y: ean.height / 2, width: ean.width, height: 4)
        var picture = placed(try sample("clean/code128.png"))
        for y in 0..<strip.height {
            for x in 0..<strip.width { picture[100 + x, 500 + y] = strip[x, y] }
        }
        #expect(Set(tryHarder.read(picture).map(\.text)) == Set(fast.read(picture).map(\.text)))
        #expect(fast.read(picture).count == 2)
    }

    /// An EAN-13 cut to a strip of 8 rows: the skim crosses it on 4 lines, a weak reading, so the
    /// picture is read at every line; a small picture is never skimmed.
    @Test func aWeakEANReadingInTheSkimIsReadAgainAtEveryLine() throws {
        let code = try sample("clean/ean13.png")
        let strip = placed(code.cropped(x: 0, y: code.height / 2, width: code.width, height: 8))
        let camera = BarcodeReader(options: .camera()).read(strip)
        #expect(camera.map(\.symbology) == [.ean13])
        #expect(camera.allSatisfy(BarcodeReader.isWeakEANUPCReading))
        let read = tryHarder.read(strip)
        #expect(read.map(\.text) == camera.map(\.text))
        #expect(read.map(\.quality) == fast.read(strip).map(\.quality))
        #expect(!read.contains(where: BarcodeReader.isWeakEANUPCReading))
        let small = placed(code, width: code.width + 40, height: code.height + 40)
        #expect(small.width * small.height <= BarcodeReader.fullSizeRetryLimit)
        #expect(tryHarder.read(small) == fast.read(small))
    }
}
