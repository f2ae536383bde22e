import Imaging
import TestSupport
import Testing

@testable import Scanning

/// The camera's look scans every other line (``ReaderOptions/camera(symbologies:)``): it must read
/// what the still look reads.
@Suite struct ScanLineSpacingTests {
    @Test func theCameraSkipsLinesAndHandsQRCodesToTheSecondEngine() {
        let camera = ReaderOptions.camera()
        #expect(camera.scanLineSpacing == ReaderOptions.cameraScanLineSpacing)
        #expect(camera.scanLineSpacing > 1)
        #expect(camera.secondEngineFirst == Symbology.zbarLacks.union([.qrcode]))
        #expect(ReaderOptions().scanLineSpacing == 1)
        #expect(ReaderOptions().secondEngineFirst == Symbology.zbarLacks)
    }

    @Test func aSpacingOutOfRangeIsClamped() {
        #expect(ReaderOptions(scanLineSpacing: 0).scanLineSpacing == 1)
        #expect(ReaderOptions(scanLineSpacing: -5).scanLineSpacing == 1)
        #expect(ReaderOptions(scanLineSpacing: 1000).scanLineSpacing == ReaderOptions.maxScanLineSpacing)
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
    /// ZBar drops EAN/UPC, DataBar and Codabar reads seen on fewer than 4 lines when it scans every
    /// line, not when it skips lines: the camera's look drops them itself.
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
        let kept = BarcodeReader.seenOnEnoughLines(codes, .camera()).map(\.symbology)
        #expect(kept == [.upca, .code128, .qrcode])
        #expect(BarcodeReader.seenOnEnoughLines(codes, ReaderOptions()) == codes)
    }
}
