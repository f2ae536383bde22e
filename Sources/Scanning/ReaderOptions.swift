/// What a ``BarcodeReader`` looks for. A value type with documented defaults, built from the
/// command line or config in one place.
///
///     let options = ReaderOptions(symbologies: [.ean13, .upca, .code128])
public struct ReaderOptions: Sendable, Equatable {
    /// The symbologies to report (default: ``Symbology/defaults``). UPC-A is found by ZBar's EAN-13
    /// decoder and reported as UPC-A whenever it is in this set; an EAN-13 with a leading zero is a
    /// UPC-A, and is reported as EAN-13 only when UPC-A is not asked for.
    public var symbologies: Set<Symbology>
    /// When the first look finds nothing, look again at transformed copies of the image (see
    /// ``BarcodeReader/RetryPass``). Off by default: the camera loop keeps one fast pass per frame.
    public var tryHarder: Bool
    /// The looks a try-harder read takes, in order (default: ``BarcodeReader/RetryPass/standard``).
    public var retryPasses: [BarcodeReader.RetryPass]
    /// Report an EAN-2/EAN-5 add-on appended to its main code's digits instead of as a symbol of its
    /// own (see `AddOnJoining`). Off by default, as in zxing: most labels' add-ons are a price or an
    /// issue number, not part of the product's code.
    public var joinsAddOns: Bool
    /// Decode Code 39's Full ASCII shifts (`+A` → `a`; see `Code39FullASCII`). Off by default, as in
    /// zxing: nothing in a Code 39 says which mode it was printed in.
    public var code39FullASCII: Bool
    /// With ``tryHarder``, let zxing-cpp look at an image ZBar's passes found nothing in (default:
    /// on). Off only to measure what ZBar alone reads.
    public var secondEngine: Bool
    /// With ``tryHarder``, look last for linear codes turned away from the image axes, along the
    /// bars' own direction (see `BarRegion`; default: on). Off only to measure what it gains.
    public var angledLook: Bool
    /// ZBar's fast look scans every `scanLineSpacing`th row and column (default 1: every one). A
    /// code needs only a few of its rows crossed, so a camera, whose codes are held close and span
    /// dozens of rows, uses ``cameraScanLineSpacing``; still images keep every line.
    public var scanLineSpacing: Int {
        didSet { scanLineSpacing = Self.clampedSpacing(scanLineSpacing) }
    }

    public init(
        symbologies: Set<Symbology> = Symbology.defaults, tryHarder: Bool = false, joinsAddOns: Bool = false,
        code39FullASCII: Bool = false, retryPasses: [BarcodeReader.RetryPass] = BarcodeReader.RetryPass.standard,
        secondEngine: Bool = true, angledLook: Bool = true, scanLineSpacing: Int = 1
    ) {
        self.scanLineSpacing = Self.clampedSpacing(scanLineSpacing)
        self.angledLook = angledLook
        self.secondEngine = secondEngine
        self.retryPasses = retryPasses
        self.symbologies = symbologies
        self.tryHarder = tryHarder
        self.joinsAddOns = joinsAddOns
        self.code39FullASCII = code39FullASCII
    }

    /// The options a camera's frames are read with: ``scanLineSpacing`` ``cameraScanLineSpacing``,
    /// the rest as for a still image.
    public static func camera(symbologies: Set<Symbology> = Symbology.defaults) -> ReaderOptions {
        ReaderOptions(symbologies: symbologies, scanLineSpacing: cameraScanLineSpacing)
    }

    /// A camera frame's scan line spacing: every other row and column halves ZBar's own look at a
    /// 1280×720 frame, and a code a picker holds to the camera still crosses dozens of the lines
    /// (measured: docs/benchmarks.md, "Every other scan line in the camera loop").
    public static let cameraScanLineSpacing = 2

    /// The widest spacing taken: a code must be read on 4 lines (`BarcodeReader.leastLines`), so at 4
    /// it needs 16 rows of bars, and beyond that small codes fall between the lines.
    public static let maxScanLineSpacing = 4

    /// `spacing` within 1...``maxScanLineSpacing``.
    static func clampedSpacing(_ spacing: Int) -> Int { min(max(spacing, 1), maxScanLineSpacing) }
}
