import Imaging

/// What the reader does for ZBar when it skips scan lines (``ReaderOptions/scanLineSpacing`` over
/// 1, the camera's look): ZBar then reports codes seen on a single line, and its QR finder misses
/// small turned codes between the lines.
extension BarcodeReader {
    /// `codes` without the EAN/UPC and DataBar ones seen on fewer than ``leastLines`` scan lines,
    /// when lines are skipped. libzbar drops those itself when it scans every row or every column
    /// (one line's read of noise or of a smudged code passes a check digit too often), but not when
    /// it skips both (`zbar_scan_image`; Codabar it drops at any spacing).
    static func seenOnEnoughLines(_ codes: [Barcode], spacing: Int) -> [Barcode] {
        guard spacing > 1 else { return codes }
        return codes.filter { $0.quality >= leastLines || !Symbology.checkedOnSeveralLines.contains($0.symbology) }
    }

    /// The scan lines an EAN/UPC or DataBar code must be read on (libzbar's own rule).
    static let leastLines = 4

    /// A QR code ZBar's look between skipped lines missed (none of `found` is a QR code): zxing-cpp
    /// finds it, and ZBar reads the place it found at every line, so its text is what a still
    /// picture's look gives (ZBar's bytes, ``QRText``'s character set, GS1's separators); zxing-cpp's
    /// own reading only when ZBar still reads nothing there (and it is not one zxing-cpp may have
    /// cut short). Nil when lines are not skipped, QR codes are not wanted, or there is none.
    func qrCodeBetweenLines(_ image: GreyImage, besides found: [Barcode], spacing: Int) -> Barcode? {
        guard spacing > 1, options.symbologies.contains(.qrcode),
            !found.contains(where: { $0.symbology == .qrcode }),
            let located = ZXingReader.read(image, looking: [.qrcode]).flatMap(report),
            let (left, right, top, bottom) = located.outlineBox
        else { return nil }
        // Room for the quiet zone and for corners zxing-cpp placed a module or two inside.
        let margin = max(right - left, bottom - top) / 4 + Self.qrCutMargin
        let cut = image.cropped(
            x: left - margin, y: top - margin, width: right - left + 2 * margin, height: bottom - top + 2 * margin)
        guard let everyLine = scanner(limitedTo: [.qrcode]),
            let read = scan(cut, with: everyLine).first(where: { $0.symbology == .qrcode })
        else { return ZXingReader.mayBeCutShort(located) ? nil : located }
        let (dx, dy) = (max(left - margin, 0), max(top - margin, 0))
        return read.mappingPoints { Barcode.Point(x: $0.x + dx, y: $0.y + dy) }
    }

    /// Pixels added around the cut-out of a QR code zxing-cpp found, besides a quarter of its size.
    static let qrCutMargin = 8
}
