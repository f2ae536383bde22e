import CZBar
import Imaging

/// Finds barcodes in grey images with ZBar's image scanner.
///
/// A reader owns one ZBar scanner and is not thread-safe: give each thread its own (they are cheap).
///
///     let reader = BarcodeReader(options: ReaderOptions())
///     for code in reader.read(image) { print(code.symbology, code.text ?? "<binary>") }
public final class BarcodeReader {
    public let options: ReaderOptions
    private let scanner: OpaquePointer
    /// A scanner for the passes limited to some symbologies (made on first use).
    private var limitedScanners: [Set<Symbology>: OpaquePointer] = [:]
    /// Scanners that scan rows only, for the angled look's upright cut-outs (made on first use).
    private var rowScanners: [Set<Symbology>: OpaquePointer] = [:]
    /// A scanner at every other line, for a try-harder read's first look at a big picture (made on
    /// first use).
    private var skimmingScanner: OpaquePointer?
    /// What the camera loop's angled looks have cost (see ``readFrame(_:until:)``).
    var frameCosts = FrameLookCosts()

    public init(options: ReaderOptions = ReaderOptions()) {
        self.options = options
        scanner = Self.makeScanner(for: options.symbologies, spacing: options.scanLineSpacing)
    }

    deinit {
        zbar_image_scanner_destroy(scanner)
        limitedScanners.values.forEach { zbar_image_scanner_destroy($0) }
        rowScanners.values.forEach { zbar_image_scanner_destroy($0) }
        if let skimmingScanner { zbar_image_scanner_destroy(skimmingScanner) }
    }

    /// A ZBar scanner with exactly `symbologies` enabled (not ZBar's defaults plus ours), scanning
    /// every `spacing`th row and column.
    private static func makeScanner(for symbologies: Set<Symbology>, spacing: Int = 1) -> OpaquePointer {
        let scanner = zbar_image_scanner_create()!
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        let density = Int32(ReaderOptions.clampedSpacing(spacing))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, density)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, density)
        for type in zbarSymbologies(for: symbologies).compactMap(\.zbarType) {
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
        }
        // QR bytes come raw; QRText chooses their character set better than ZBar's guess.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        return scanner
    }

    func scanner(limitedTo symbologies: Set<Symbology>?) -> OpaquePointer? {
        guard let symbologies else { return scanner }
        let wanted = symbologies.intersection(options.symbologies)
        guard !wanted.isEmpty else { return nil }
        if let made = limitedScanners[wanted] { return made }
        let made = Self.makeScanner(for: wanted)
        limitedScanners[wanted] = made
        return made
    }

    /// A scanner for `symbologies` that scans rows only: a cut-out's bars are upright, and its
    /// columns would only cost time.
    func rowScanner(for symbologies: Set<Symbology>) -> OpaquePointer {
        if let made = rowScanners[symbologies] { return made }
        let made = Self.makeScanner(for: symbologies)
        zbar_image_scanner_set_config(made, ZBAR_NONE, ZBAR_CFG_X_DENSITY, 0)
        rowScanners[symbologies] = made
        return made
    }

    /// The codes in `image`: ZBar's, in the order it found them, then zxing-cpp's one code of a
    /// symbology ZBar lacks (Data Matrix, Aztec, PDF417) when ``ReaderOptions/symbologies`` asks
    /// for one. With ``ReaderOptions/tryHarder``, an image where the first look finds nothing is
    /// looked at again through each of ``ReaderOptions/retryPasses`` in turn, stopping at the first
    /// that finds something, and then by zxing-cpp (``ReaderOptions/secondEngine``).
    ///
    /// A try-harder read of a big still picture (over ``fullSizeRetryLimit`` pixels, from which
    /// the retry passes halve it) skims it first, every other line as the camera looks: a code
    /// big enough to matter in it crosses plenty of lines, and when the skim reads nothing, the
    /// retry passes look at every line of the halved picture next. The picture's every line is
    /// looked at too, and what that reads is taken, where the skim may have missed or misread a
    /// code: when it saw a code on too few lines to take it, and when it or a later look reads an
    /// EAN/UPC code weakly (on fewer than ``crossCheckedBelowLines`` lines, or zxing-cpp's
    /// reading). On the corpus: about 10% less CPU, every picture read the same but for a false
    /// ITF in an EAN-13's bars gone (docs/benchmarks.md, "Big pictures skimmed first").
    public func read(_ image: GreyImage) -> [Barcode] {
        let skims =
            options.tryHarder && options.scanLineSpacing == 1 && image.width * image.height > Self.fullSizeRetryLimit
        let first = look(image, spacing: skims ? Self.skimSpacing : options.scanLineSpacing)
        var found = first.codes
        let everyLineLooked = skims && (first.uncertain || found.contains(where: Self.isWeakEANUPCReading))
        if everyLineLooked { found = look(image, spacing: options.scanLineSpacing).codes }
        let unread = options.symbologies.intersection(Symbology.zbarLacks)
        if !unread.isEmpty, let other = ZXingReader.read(image, looking: unread).flatMap(report) {
            found.append(other)
        }
        guard options.tryHarder else { return found }
        guard found.isEmpty else { return checked(found, in: image) }
        let harder = lookingHarder(at: image)
        guard skims, !everyLineLooked else { return harder }
        if harder.contains(where: Self.isWeakEANUPCReading) {
            let everyLine = look(image, spacing: options.scanLineSpacing).codes
            if !everyLine.isEmpty { return checked(everyLine, in: image) }
        }
        return harder
    }

    /// A first look's codes, checked by zxing-cpp when ``ReaderOptions/secondEngine`` allows: a Code
    /// 128's Latin-1 restored, a weak EAN/UPC reading compared.
    private func checked(_ found: [Barcode], in image: GreyImage) -> [Barcode] {
        options.secondEngine ? crossChecked(restoringCode128Extended(found, in: image), in: image) : found
    }

    /// The try-harder looks at a picture the first look read nothing in, in turn until one reads a code.
    private func lookingHarder(at image: GreyImage) -> [Barcode] {
        if options.symbologies.contains(.databarExpanded), let ours = DataBarExpandedReader.read(image) {
            return [ours]
        }
        // A big picture is looked at again at half size: four times cheaper, and a code big enough to
        // matter in it keeps enough pixels per bar (measured: see README, "Try-harder passes").
        let reduced = image.width * image.height > Self.fullSizeRetryLimit
        let base = reduced ? image.halved() : image
        // The retry passes look at every line, as libzbar checks: a first look that skipped lines
        // (``ReaderOptions/scanLineSpacing``) is what they try harder than.
        let everySymbology = options.scanLineSpacing > 1 ? options.symbologies : nil
        for pass in options.retryPasses where pass.applies(to: base, reduced: reduced) {
            guard let limited = scanner(limitedTo: pass.onlySymbologies ?? everySymbology) else { continue }
            let looked = pass.transform(base)
            let again = finished(scan(looked, with: limited))
            if !again.isEmpty {
                return again.map { $0.mappingPoints { point in pointInImage(point, by: pass, looked, base, image) } }
            }
        }
        if options.secondEngine {
            let other = secondEngineLook(image)
            if !other.isEmpty { return other }
        }
        if options.angledLook {
            let angled = angledLook(image)
            if !angled.isEmpty { return angled }
        }
        return options.secondEngine ? secondEngineQRLook(image) : []
    }

    /// The line spacing a try-harder read skims a big picture at: the camera's.
    static let skimSpacing = ReaderOptions.cameraScanLineSpacing

    /// Whether `code` is an EAN/UPC reading on fewer than ``crossCheckedBelowLines`` scan lines.
    static func isWeakEANUPCReading(_ code: Barcode) -> Bool {
        Symbology.eanUPC.contains(code.symbology) && code.quality < crossCheckedBelowLines
    }

    /// One look by ZBar at every `spacing`th line (and by zxing-cpp for a QR code between skipped
    /// lines), its readings checked as that spacing needs; `uncertain` when ZBar read a code on
    /// too few of the lines to take it.
    private func look(_ image: GreyImage, spacing: Int) -> (codes: [Barcode], uncertain: Bool) {
        var found: [Barcode] = []
        var uncertain = false
        if hasZBarSymbologies {
            let zbar = scan(image, with: spacing == options.scanLineSpacing ? scanner : skimmer())
            let seen = Self.seenOnEnoughLines(zbar, spacing: spacing)
            uncertain = seen.count < zbar.count
            found = correctingDataBarExpanded(finished(seen), in: image)
        }
        if let between = qrCodeBetweenLines(image, besides: found, spacing: spacing) { found.append(between) }
        return (found, uncertain)
    }

    /// The scanner at ``skimSpacing`` (made on first use).
    private func skimmer() -> OpaquePointer {
        if let skimmingScanner { return skimmingScanner }
        let made = Self.makeScanner(for: options.symbologies, spacing: Self.skimSpacing)
        skimmingScanner = made
        return made
    }

    /// zxing-cpp's look at an image nothing else read: every wanted symbology it reads (the ones
    /// ZBar lacks were looked for already), a linear code only when seen on
    /// ``secondEngineLineCount`` scan lines, and an 8-digit one (EAN-8, UPC-E) on
    /// ``shortCodeLineCount``. Linear codes are looked for along the rows only: ZBar's looks went
    /// both ways, and on the corpus turning the picture gained nothing for 40% more time.
    private func secondEngineLook(_ image: GreyImage) -> [Barcode] {
        let wanted = options.symbologies.intersection(ZXingReader.readable).subtracting(Symbology.zbarLacks)
        let short = wanted.intersection([.ean8, .upce])
        for (symbologies, lines) in [
            (wanted.subtracting(short), Self.secondEngineLineCount), (short, Self.shortCodeLineCount),
        ] {
            if let code = ZXingReader.read(image, looking: symbologies, minLineCount: lines, rotating: false)
                .flatMap(report), !ZXingReader.mayBeCutShort(code)
            {
                return [code]
            }
        }
        return []
    }

    /// The scan lines zxing-cpp must read a linear code on before `--try-harder` takes it (its own
    /// default is 2): the images it is asked about are the ones every other look failed on. On the
    /// corpus, 2 lines took a UPC-A without its add-on, 3 gained the same codes otherwise.
    public static let secondEngineLineCount = 3

    /// The scan lines for an EAN-8 or UPC-E: an 8-digit code has little to check a misread against
    /// (seven digits, one check digit), and on 3 lines zxing-cpp misread a UPC-E on the corpus.
    public static let shortCodeLineCount = 4

    /// `codes` with a lone Code 128's text replaced by zxing-cpp's reading when that is the same text
    /// but for characters from the upper half of Latin-1: ZBar ignores Code 128's FNC4 (which shifts
    /// the next character up by 128), so `óó12` comes out as `ss12`; zxing-cpp applies it.
    func restoringCode128Extended(_ codes: [Barcode], in image: GreyImage) -> [Barcode] {
        let indices = codes.indices.filter { codes[$0].symbology == .code128 }
        guard indices.count == 1, let zbarText = codes[indices[0]].text,
            let other = ZXingReader.read(image, looking: [.code128], minLineCount: Self.secondEngineLineCount),
            let otherText = other.text, otherText != zbarText,
            otherText.unicodeScalars.count == zbarText.unicodeScalars.count,
            zip(otherText.unicodeScalars, zbarText.unicodeScalars).allSatisfy({ ours, theirs in
                ours == theirs || (ours.value >= 0xA0 && ours.value <= 0xFF && ours.value - 0x80 == theirs.value)
            })
        else { return codes }
        var corrected = codes
        corrected[indices[0]].payload = other.payload
        return corrected
    }

    /// Whether any wanted symbology is ZBar's to read.
    private var hasZBarSymbologies: Bool { !options.symbologies.subtracting(Symbology.zbarLacks).isEmpty }

    /// Where `point`, found in `looked` (`pass` applied to `base`, which is `image` or its half),
    /// lies in `image`, kept inside it.
    private func pointInImage(
        _ point: Barcode.Point, by pass: RetryPass, _ looked: GreyImage, _ base: GreyImage, _ image: GreyImage
    ) -> Barcode.Point {
        let (x, y) = pass.pointInBase(point, base: base, looked: looked)
        let scaledX = Int((x * Double(image.width) / Double(base.width)).rounded())
        let scaledY = Int((y * Double(image.height) / Double(base.height)).rounded())
        return Barcode.Point(x: min(image.width - 1, max(0, scaledX)), y: min(image.height - 1, max(0, scaledY)))
    }

    /// `codes` with ZBar's DataBar Expanded text replaced by our decoder's reading of the same image,
    /// when there is one symbol and ours reads it (see `DataBarExpandedReader` for what ZBar gets wrong).
    private func correctingDataBarExpanded(_ codes: [Barcode], in image: GreyImage) -> [Barcode] {
        let indices = codes.indices.filter { codes[$0].symbology == .databarExpanded }
        guard indices.count == 1, let ours = DataBarExpandedReader.read(image) else { return codes }
        var corrected = codes
        corrected[indices[0]].payload = ours.payload
        return corrected
    }

    /// The largest picture (in pixels) the retry passes look at full size; bigger ones are halved
    /// first.
    public static let fullSizeRetryLimit = 200_000

    /// One look's codes as reported: lone add-ons dropped, the others joined to their main codes
    /// when asked.
    func finished(_ codes: [Barcode]) -> [Barcode] {
        let plausible = LoneAddOnGuard.apply(codes)
        return options.joinsAddOns ? AddOnJoining.join(plausible) : plausible
    }

    /// One look by ZBar at `image`.
    func scan(_ image: GreyImage, with scanner: OpaquePointer) -> [Barcode] {
        guard image.width > 0, image.height > 0 else { return [] }
        guard let zbarImage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zbarImage) }
        zbar_image_set_format(zbarImage, scanpick_zbar_fourcc_y800)
        zbar_image_set_size(zbarImage, UInt32(image.width), UInt32(image.height))

        return image.pixels.withUnsafeBufferPointer { pixels in
            // ZBar only reads the pixels, and only during zbar_scan_image; no cleanup handler.
            zbar_image_set_data(zbarImage, pixels.baseAddress, UInt(pixels.count), nil)
            guard zbar_scan_image(scanner, zbarImage) > 0 else { return [] }
            var found: [Barcode] = []
            var symbol = zbar_image_first_symbol(zbarImage)
            while let current = symbol {
                if let barcode = Self.barcode(from: current), let reported = report(barcode) {
                    found.append(reported)
                }
                symbol = zbar_symbol_next(current)
            }
            return found
        }
    }

    /// The ZBar decoders to turn on for `wanted`: UPC-A is read by the EAN-13 decoder and renamed
    /// afterwards, which finds more codes than ZBar's own UPC-A mode.
    static func zbarSymbologies(for wanted: Set<Symbology>) -> Set<Symbology> {
        var enabled = wanted
        if enabled.remove(.upca) != nil { enabled.insert(.ean13) }
        return enabled
    }

    /// Renames an EAN-13 with a leading zero to UPC-A when UPC-A is wanted, decodes Code 39 Full
    /// ASCII when asked, and drops what is not wanted.
    func report(_ barcode: Barcode) -> Barcode? {
        var barcode = barcode
        if barcode.symbology == .ean13 && options.symbologies.contains(.upca) && barcode.payload.first == 48 {
            barcode.symbology = .upca
            barcode.payload.removeFirst()
        }
        if barcode.symbology == .code39 && options.code39FullASCII {
            barcode.payload = Code39FullASCII.decode(barcode.payload) ?? barcode.payload
        }
        return options.symbologies.contains(barcode.symbology) ? barcode : nil
    }

    private static func barcode(from symbol: OpaquePointer) -> Barcode? {
        guard let symbology = Symbology(zbarType: zbar_symbol_get_type(symbol)) else { return nil }
        let length = Int(zbar_symbol_get_data_length(symbol))
        var payload: [UInt8] = []
        if length > 0, let data = zbar_symbol_get_data(symbol) {
            payload = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
        }
        if symbology == .qrcode { payload = QRText.utf8(from: payload) }
        let located = (0..<zbar_symbol_get_loc_size(symbol)).map { index in
            Barcode.Point(x: Int(zbar_symbol_get_loc_x(symbol, index)), y: Int(zbar_symbol_get_loc_y(symbol, index)))
        }
        let orientation: Barcode.Orientation =
            switch zbar_symbol_get_orientation(symbol) {
            case ZBAR_ORIENT_UP: .up
            case ZBAR_ORIENT_RIGHT: .right
            case ZBAR_ORIENT_DOWN: .down
            case ZBAR_ORIENT_LEFT: .left
            default: .unknown
            }
        let gs1 = zbar_symbol_get_modifiers(symbol) & (1 << ZBAR_MOD_GS1.rawValue) != 0
        return Barcode(
            symbology: symbology, payload: payload, quality: Int(zbar_symbol_get_quality(symbol)),
            points: Barcode.Point.convexHull(located), orientation: orientation,
            isGS1: gs1 || [.databar, .databarExpanded].contains(symbology))
    }
}
