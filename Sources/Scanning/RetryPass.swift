import Imaging

extension BarcodeReader {
    /// A second look at an image the first look found nothing in, in the order they are tried.
    /// What each does and when it is tried is said once, in ``summary`` and ``BarcodeReader/tryHarderDescription``,
    /// from which `scanpick decode --help` and docs/decode.md (checked by a test) take it.
    ///
    /// Each pass is kept only for what it gains on the real-world corpus (`scripts/bench-decode
    /// --try-harder`); the measured gain of each, and of the passes tried and not kept, is in
    /// docs/benchmarks.md.
    public enum RetryPass: CaseIterable, Sendable {
        /// Contrast stretched between the 1st and 99th percentile: washed-out or dark pictures.
        case contrastStretched
        /// Light for dark: codes printed light on a dark ground.
        case inverted
        /// Half the size: big, soft codes whose edges are too gradual at full size.
        case halved
        /// Twice the size, QR codes only: modules of a pixel or two. Linear codes are not read from
        /// it, because interpolated bars gave EAN/UPC misreads on the corpus.
        case doubledQROnly
        /// An unsharp mask: slightly out-of-focus codes.
        case sharpened
        /// Smoothed (σ ≈ 1): speckle, print texture and JPEG ringing that break ZBar's scanlines.
        case blurred
        /// Rows (or columns) repeated until the picture is 8 pixels each way: ZBar must see a linear
        /// code on more than one scan line, and a crop one pixel tall has only one.
        case thickened
        /// In a margin of its own background: codes cropped to their bars, with no quiet zone.
        case padded

        func transform(_ image: GreyImage) -> GreyImage {
            switch self {
            case .contrastStretched: image.contrastStretched()
            case .inverted: image.inverted()
            case .blurred: image.blurred()
            case .halved: image.halved()
            case .sharpened: image.sharpened()
            case .doubledQROnly: image.doubled()
            case .thickened: image.thickened(to: Self.thinLimit)
            case .padded: image.padded(by: Self.margin(for: image))
            }
        }

        /// The passes `--try-harder` makes, in order: each of these earned its place on the corpus
        /// (README, "Try-harder passes").
        public static let standard: [RetryPass] = [.thickened, .contrastStretched, .inverted, .blurred]

        /// The name on the command line (`--retry-passes`).
        public var name: String {
            switch self {
            case .contrastStretched: "contrast-stretched"
            case .inverted: "inverted"
            case .blurred: "blurred"
            case .halved: "halved"
            case .sharpened: "sharpened"
            case .doubledQROnly: "doubled-qr"
            case .thickened: "thickened"
            case .padded: "padded"
            }
        }

        /// The pass named `name`, if any.
        public init?(name: String) {
            guard let pass = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = pass
        }

        /// What the pass does, in a few words, with its own condition (for help and the README).
        public var summary: String {
            switch self {
            case .thickened: "thickened (pictures under \(Self.thinLimit) pixels one way)"
            case .contrastStretched: "contrast-stretched (unless the picture already spans black to white)"
            case .inverted: "inverted (light on dark)"
            case .halved: "halved"
            case .doubledQROnly: "doubled (QR codes only)"
            case .padded: "padded (with a margin of its own background)"
            case .sharpened: "sharpened"
            case .blurred: "blurred"
            }
        }

        /// Whether the pass is only tried on small pictures (up to ``smallPictureLimit``), where every
        /// read it gains on the corpus was.
        public var smallPicturesOnly: Bool {
            switch self {
            case .doubledQROnly, .padded, .sharpened, .blurred: true
            case .thickened, .contrastStretched, .inverted, .halved: false
            }
        }

        /// Whether the pass is tried on a big picture already halved (see ``BarcodeReader/fullSizeRetryLimit``).
        public var triedOnHalvedPictures: Bool {
            switch self {
            case .thickened, .contrastStretched, .inverted: true
            case .halved, .doubledQROnly, .padded, .sharpened, .blurred: false
            }
        }

        /// Whether this pass is worth its time on `image` (`reduced` when it is a big picture already
        /// halved): as ``summary``, ``smallPicturesOnly`` and ``triedOnHalvedPictures`` say.
        func applies(to image: GreyImage, reduced: Bool = false) -> Bool {
            if reduced && !triedOnHalvedPictures { return false }
            if smallPicturesOnly && image.width * image.height > Self.smallPictureLimit { return false }
            switch self {
            case .contrastStretched:
                // A picture that already spans nearly black to white would come back almost unchanged.
                return Self.spansLessThanFullRange(image)
            case .thickened: return min(image.width, image.height) < Self.thinLimit
            case .inverted, .halved, .doubledQROnly, .padded, .sharpened, .blurred: return true
            }
        }

        private static func spansLessThanFullRange(_ image: GreyImage) -> Bool {
            let (low, high) = image.levelRange()
            return low > 8 || high < 247
        }

        /// The size (in pixels, either way) below which a picture is thickened.
        public static let thinLimit = 8

        /// Where `point`, found in `looked` (this pass's transform of `base`), lies in `base`.
        func pointInBase(_ point: Barcode.Point, base: GreyImage, looked: GreyImage) -> (x: Double, y: Double) {
            if self == .padded {
                let margin = Self.margin(for: base)
                return (Double(point.x - margin), Double(point.y - margin))
            }
            return (
                Double(point.x) * Double(base.width) / Double(looked.width),
                Double(point.y) * Double(base.height) / Double(looked.height)
            )
        }

        /// The margin the padded pass adds: a tenth of the picture's longer side, at least 8 pixels.
        static func margin(for image: GreyImage) -> Int { max(8, max(image.width, image.height) / 10) }

        /// The largest picture (in pixels) the doubled, padded, sharpened and blurred passes are tried
        /// on: 256 × 256. Every read they gain on the corpus is in a picture this small, and on bigger
        /// ones they cost most of the try-harder time (README, "Try-harder passes").
        public static let smallPictureLimit = 65_536

        /// Only these codes are taken from this pass (nil: every wanted symbology).
        var onlySymbologies: Set<Symbology>? {
            self == .doubledQROnly ? [.qrcode] : nil
        }
    }
}
