import Imaging

extension BarcodeReader {
    /// `codes`, the first look's, with a lone EAN/UPC code that ZBar read on fewer than
    /// ``crossCheckedBelowLines`` scan lines checked by zxing-cpp: when zxing-cpp reads the picture
    /// as another EAN/UPC code on at least ``crossCheckEngineLines`` rows, its reading replaces
    /// ZBar's (an add-on beside it stays). A weak EAN/UPC reading of a photo is where ZBar's misreads
    /// are (a wrong digit pair can pass the check digit); a reading on many more lines is the better
    /// evidence. Corpus: 41 readings under 8 lines; zxing-cpp read nothing in 35 pictures, agreed
    /// in 5 and read another code in one, a misread turned correct (`upca-4/13`: ZBar on 6 lines,
    /// zxing-cpp on 24 and more). On every EAN/UPC picture, whatever ZBar's lines, it disagreed
    /// nowhere else.
    ///
    /// zxing-cpp reads one code of the picture: its reading must lie where ZBar's does (see
    /// ``liesOn(_:_:)``), and ZBar must have read no other code of the EAN decoder's (an ISBN is
    /// one), or zxing-cpp's reading could be that other code's. A second code right beside the
    /// weak one, which ZBar missed and zxing-cpp read, is not told apart.
    func crossChecked(_ codes: [Barcode], in image: GreyImage) -> [Barcode] {
        let family = Symbology.eanUPC
        let eanDecoder = family.union([.isbn10, .isbn13])
        let indices = codes.indices.filter { eanDecoder.contains(codes[$0].symbology) }
        guard indices.count == 1, family.contains(codes[indices[0]].symbology),
            codes[indices[0]].quality < Self.crossCheckedBelowLines,
            let other = ZXingReader.read(
                image, looking: options.symbologies.intersection(family), minLineCount: Self.crossCheckEngineLines,
                rotating: false
            ).flatMap(report), family.contains(other.symbology), Self.liesOn(other, codes[indices[0]])
        else { return codes }
        // With ``ReaderOptions/joinsAddOns`` ZBar's add-on digits follow the code's own: they stay.
        let zbar = codes[indices[0]]
        let ownDigits = Self.digitCount[zbar.symbology] ?? zbar.payload.count
        let addOn = zbar.payload.dropFirst(ownDigits)
        guard other.symbology != zbar.symbology || other.payload != Array(zbar.payload.prefix(ownDigits)) else {
            return codes
        }
        var checked = codes
        checked[indices[0]] = other
        checked[indices[0]].payload += addOn
        return checked
    }

    /// Whether `other`'s outline box overlaps `code`'s grown each way by half the longer side of
    /// either: a weak ZBar reading's outline may be a few of the code's lines at one end of it, or
    /// two points, where zxing-cpp's spans the code's width. A code one code's size away or more is
    /// another code.
    static func liesOn(_ other: Barcode, _ code: Barcode) -> Bool {
        guard let (left, right, top, bottom) = code.outlineBox, let box = other.outlineBox else { return false }
        let reach = max(right - left, bottom - top, box.right - box.left, box.bottom - box.top) / 2
        return box.left <= right + reach && box.right >= left - reach && box.top <= bottom + reach
            && box.bottom >= top - reach
    }

    /// The digits of an EAN/UPC code's own, without an add-on.
    private static let digitCount: [Symbology: Int] = [.ean13: 13, .upca: 12, .ean8: 8, .upce: 8]

    /// ZBar's scan lines below which a first look's lone EAN/UPC reading is checked by zxing-cpp
    /// (41 pictures of the corpus; their checks cost too little to measure in a whole-corpus run).
    public static let crossCheckedBelowLines = 8
    /// The rows zxing-cpp must read another EAN/UPC code on to replace ZBar's weak reading: twice
    /// ZBar's least, so that one weak reading never replaces another.
    public static let crossCheckEngineLines = 16

    /// zxing-cpp's last looks, for a QR code in a picture of at most ``qrLookLimit`` pixels that
    /// every other look read nothing in: the picture halved, then inverted, then sharpened. Each
    /// read one QR code of the corpus that nothing else reads: halved, big modules (13 pixels) with
    /// rough edges and no quiet zone; inverted, a light-on-dark code (zxing-cpp 1.4 does not invert,
    /// and ZBar's inverted pass could not read it); sharpened, a small, soft one. On bigger pictures
    /// they read nothing on the corpus and cost 0.7 CPU s more.
    func secondEngineQRLook(_ image: GreyImage) -> [Barcode] {
        guard options.symbologies.contains(.qrcode), image.width * image.height <= Self.qrLookLimit else {
            return []
        }
        let half = image.halved()
        if let code = engineQRCode(in: half) {
            return [
                code.mappingPoints { point in
                    Barcode.Point(x: min(image.width - 1, 2 * point.x), y: min(image.height - 1, 2 * point.y))
                }
            ]
        }
        for looked in [image.inverted(), image.sharpened()] {
            if let code = engineQRCode(in: looked) { return [code] }
        }
        return []
    }

    /// The largest picture (in pixels) zxing-cpp's last QR looks are made on: the retry passes' own
    /// limit, beyond which they halve a picture first.
    public static let qrLookLimit = fullSizeRetryLimit

    private func engineQRCode(in image: GreyImage) -> Barcode? {
        guard let code = ZXingReader.read(image, looking: [.qrcode]).flatMap(report), !ZXingReader.mayBeCutShort(code)
        else { return nil }
        return code
    }
}
