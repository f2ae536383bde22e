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

    public init(options: ReaderOptions = ReaderOptions()) {
        self.options = options
        scanner = Self.makeScanner(for: options.symbologies)
    }

    deinit {
        zbar_image_scanner_destroy(scanner)
        limitedScanners.values.forEach { zbar_image_scanner_destroy($0) }
    }

    /// A ZBar scanner with exactly `symbologies` enabled (not ZBar's defaults plus ours).
    private static func makeScanner(for symbologies: Set<Symbology>) -> OpaquePointer {
        let scanner = zbar_image_scanner_create()!
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for symbology in zbarSymbologies(for: symbologies) {
            zbar_image_scanner_set_config(scanner, symbology.zbarType, ZBAR_CFG_ENABLE, 1)
        }
        // QR bytes come raw; QRText chooses their character set better than ZBar's guess.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        return scanner
    }

    private func scanner(limitedTo symbologies: Set<Symbology>?) -> OpaquePointer? {
        guard let symbologies else { return scanner }
        let wanted = symbologies.intersection(options.symbologies)
        guard !wanted.isEmpty else { return nil }
        if let made = limitedScanners[wanted] { return made }
        let made = Self.makeScanner(for: wanted)
        limitedScanners[wanted] = made
        return made
    }

    /// The codes in `image`, in the order ZBar found them. With ``ReaderOptions/tryHarder``, an image
    /// where the first look finds nothing is looked at again through each of
    /// ``ReaderOptions/retryPasses`` in turn, stopping at the first that finds something.
    public func read(_ image: GreyImage) -> [Barcode] {
        let found = correctingDataBarExpanded(finished(scan(image, with: scanner)), in: image)
        guard found.isEmpty, options.tryHarder else { return found }
        if options.symbologies.contains(.databarExpanded), let ours = DataBarExpandedReader.read(image) {
            return [ours]
        }
        // A big picture is looked at again at half size: four times cheaper, and a code big enough to
        // matter in it keeps enough pixels per bar (measured: see README, "Try-harder passes").
        let reduced = image.width * image.height > Self.fullSizeRetryLimit
        let base = reduced ? image.halved() : image
        for pass in options.retryPasses where pass.applies(to: base, reduced: reduced) {
            guard let limited = scanner(limitedTo: pass.onlySymbologies) else { continue }
            let looked = pass.transform(base)
            let again = finished(scan(looked, with: limited))
            if !again.isEmpty {
                return again.map { $0.mappingPoints { point in pointInImage(point, by: pass, looked, base, image) } }
            }
        }
        return []
    }

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
    private func finished(_ codes: [Barcode]) -> [Barcode] {
        let plausible = LoneAddOnGuard.apply(codes)
        return options.joinsAddOns ? AddOnJoining.join(plausible) : plausible
    }

    /// One look by ZBar at `image`.
    private func scan(_ image: GreyImage, with scanner: OpaquePointer) -> [Barcode] {
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
    private func report(_ barcode: Barcode) -> Barcode? {
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
        return Barcode(
            symbology: symbology, payload: payload, quality: Int(zbar_symbol_get_quality(symbol)),
            points: Barcode.Point.convexHull(located), orientation: orientation)
    }
}
