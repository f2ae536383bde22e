import Imaging
import TestSupport
import Testing

@testable import Scanning

@Suite struct BarcodeReaderTests {
    func rendered(_ digits: String) -> GreyImage {
        let drawn = BarcodeRenderer.ean13(digits)
        return GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
    }

    @Test func readsARenderedEAN13WithItsPosition() {
        let codes = BarcodeReader().read(rendered("590123412345"))
        #expect(codes.count == 1)
        #expect(codes.first?.symbology == .ean13)
        #expect(codes.first?.text == "5901234123457")
        #expect(codes.first?.orientation == .up)
        #expect((codes.first?.quality ?? 0) > 1)
        #expect(!(codes.first?.points.isEmpty ?? true))
    }

    @Test func reportsALeadingZeroEAN13AsUPCA() {
        let codes = BarcodeReader().read(rendered("003600029145"))
        #expect(codes.map(\.symbology) == [.upca])
        #expect(codes.first?.text == "036000291452")
    }

    @Test func reportsEAN13WhenUPCAIsNotWanted() {
        let codes = BarcodeReader(options: ReaderOptions(symbologies: [.ean13])).read(rendered("003600029145"))
        #expect(codes.map(\.symbology) == [.ean13])
        #expect(codes.first?.text == "0036000291452")
    }

    @Test func findsOnlyUPCAWhenOnlyUPCAIsWanted() {
        let reader = BarcodeReader(options: ReaderOptions(symbologies: [.upca]))
        #expect(reader.read(rendered("003600029145")).map(\.symbology) == [.upca])
        #expect(reader.read(rendered("590123412345")).isEmpty)
    }

    @Test func ignoresSymbologiesNotAskedFor() {
        let reader = BarcodeReader(options: ReaderOptions(symbologies: [.code128, .qrcode]))
        #expect(reader.read(rendered("590123412345")).isEmpty)
    }

    @Test func findsNothingInABlankOrEmptyImage() {
        let reader = BarcodeReader()
        #expect(reader.read(GreyImage(width: 320, height: 240, filledWith: 200)).isEmpty)
        #expect(reader.read(GreyImage(width: 0, height: 0, pixels: [])).isEmpty)
    }

    @Test(arguments: [
        ("clean/ean8.png", Symbology.ean8, "96385074"), ("clean/upce.png", .upce, "01234565"),
        ("clean/code39.png", .code39, "SKU-7731"), ("clean/itf.png", .i25, "12345678901231"),
        ("clean/code128.png", .code128, "PICK-000417/A1"),
        ("clean/qrcode.png", .qrcode, "https://scanpick.example/pick/A1?batch=417&qty=2"),
        // ISO 8859-5 bytes declared by an ECI: ZBar converts them even in the binary mode we read QR in.
        ("clean/qrcode-eci.png", .qrcode, "Привет мир"),
    ])
    func readsEachSymbologyOfTheSamples(file: String, symbology: Symbology, text: String) throws {
        let image = try ImageLoader().load(path: Repository.sample(file))
        let codes = BarcodeReader().read(image)
        #expect(codes.map(\.symbology) == [symbology])
        #expect(codes.first?.text == text)
    }

    @Test func outlinesAreConvexHulls() {
        let grid = (0...4).flatMap { x in (0...2).map { y in Barcode.Point(x: x * 10, y: y * 5) } }
        #expect(
            Barcode.Point.convexHull(grid) == [
                .init(x: 0, y: 0), .init(x: 40, y: 0), .init(x: 40, y: 10), .init(x: 0, y: 10),
            ])
        let codes = BarcodeReader().read(rendered("590123412345"))
        #expect((3...6).contains(codes.first?.points.count ?? 0))
    }

    @Test func keepsBinaryPayloadsAsBytes() {
        let code = Barcode(symbology: .qrcode, payload: [0xFF, 0x00, 0x41])
        #expect(code.text == nil)
        #expect(Barcode(symbology: .qrcode, text: "é").text == "é")
    }
}
