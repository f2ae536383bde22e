import CZXing
import Imaging

/// zxing-cpp 1.4, the second engine: it reads what ZBar has no decoder for (Data Matrix, Aztec,
/// PDF417) and, with `--try-harder`, looks at an image ZBar's passes found nothing in.
///
/// Debian's zxing-cpp 1.4 aborts the process (an assertion in `Result::operator==`) on some images;
/// the C shim (`Sources/CShims/CZXing/zxing.cpp`) says which calls reach it and makes only the one
/// call that cannot, and never asks for DataBar (ZBar and our own decoder read it).
///
///     ZXingReader.read(image, looking: [.dataMatrix])  // a GS1 Data Matrix, or nil
public enum ZXingReader {
    /// The symbologies zxing-cpp is asked for, and how it names them.
    static let formats: [Symbology: UInt32] = [
        .ean8: UInt32(SCANPICK_ZXING_EAN8), .ean13: UInt32(SCANPICK_ZXING_EAN13), .upca: UInt32(SCANPICK_ZXING_UPCA),
        .upce: UInt32(SCANPICK_ZXING_UPCE), .i25: UInt32(SCANPICK_ZXING_ITF), .codabar: UInt32(SCANPICK_ZXING_CODABAR),
        .code39: UInt32(SCANPICK_ZXING_CODE39), .code93: UInt32(SCANPICK_ZXING_CODE93),
        .code128: UInt32(SCANPICK_ZXING_CODE128), .qrcode: UInt32(SCANPICK_ZXING_QRCODE),
        .dataMatrix: UInt32(SCANPICK_ZXING_DATAMATRIX), .aztec: UInt32(SCANPICK_ZXING_AZTEC),
        .pdf417: UInt32(SCANPICK_ZXING_PDF417),
    ]

    /// Whether `code`, read by zxing-cpp, may have lost the end of its text: zxing-cpp 1.4 cuts a GS1
    /// QR code's element string after a literal % ("%%" in its alphanumeric FNC1 segment:
    /// `buffer.erase(i + 1)` in QRDecoder.cpp), leaving it ending in %. Such a reading is not taken
    /// (a shortened element string would pass for a whole one); where it was found still helps.
    public static func mayBeCutShort(_ code: Barcode) -> Bool {
        code.symbology == .qrcode && code.isGS1 && code.payload.last == UInt8(ascii: "%")
    }

    /// The symbologies zxing-cpp can be asked for here.
    public static let readable = Set(formats.keys)

    /// One look for one code of `symbologies` (those zxing-cpp is not asked for are left out): the
    /// code, or nil. A linear code must be read on `minLineCount` scan lines; `rotating` looks for
    /// linear codes (and PDF417) turned 90° too.
    public static func read(
        _ image: GreyImage, looking symbologies: Set<Symbology>, minLineCount: Int = 2, rotating: Bool = true
    ) -> Barcode? {
        let bits = symbologies.compactMap { formats[$0] }.reduce(0, |)
        guard bits != 0, image.width > 0, image.height > 0, image.width <= Int(Int32.max / 2),
            image.height <= Int(Int32.max / 2)
        else { return nil }
        var symbol = scanpick_zxing_symbol()
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            scanpick_zxing_read(
                pixels.baseAddress, Int32(image.width), Int32(image.height), bits, Int32(minLineCount),
                rotating ? 1 : 0, &symbol)
        }
        guard found == 1 else { return nil }
        defer { scanpick_zxing_symbol_free(&symbol) }
        guard let symbology = formats.first(where: { $0.value == symbol.format })?.key else { return nil }
        var payload: [UInt8] = []
        if symbol.length > 0, let bytes = symbol.bytes {
            payload = Array(UnsafeBufferPointer(start: bytes, count: Int(symbol.length)))
        }
        let corners = withUnsafeBytes(of: symbol.corners) { Array($0.bindMemory(to: Int32.self)) }
        let points = stride(from: 0, to: 8, by: 2).map { index in
            Barcode.Point(
                x: min(image.width - 1, max(0, Int(corners[index]))),
                y: min(image.height - 1, max(0, Int(corners[index + 1]))))
        }
        return Barcode(
            symbology: symbology, payload: payload, quality: 1, points: Barcode.Point.convexHull(points),
            orientation: .unknown, isGS1: symbol.isGS1 != 0)
    }
}
