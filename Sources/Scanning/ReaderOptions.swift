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

    public init(symbologies: Set<Symbology> = Symbology.defaults, tryHarder: Bool = false) {
        self.symbologies = symbologies
        self.tryHarder = tryHarder
    }
}
