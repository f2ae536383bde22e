import Imaging

extension BarcodeReader {
    /// A second look at an image the first look found nothing in, in the order they are tried.
    ///
    /// Each pass is kept only for what it gains on the real-world corpus (`scripts/bench-decode
    /// --try-harder`); the measured gain of each, and of the passes tried and not kept, is in the
    /// README. Both keep the image's geometry, so positions need no mapping back.
    public enum RetryPass: CaseIterable, Sendable {
        /// Contrast stretched between the 1st and 99th percentile: washed-out or dark pictures.
        case contrastStretched
        /// Light for dark: codes printed light on a dark ground.
        case inverted

        func transform(_ image: GreyImage) -> GreyImage {
            switch self {
            case .contrastStretched: image.contrastStretched()
            case .inverted: image.inverted()
            }
        }
    }
}
