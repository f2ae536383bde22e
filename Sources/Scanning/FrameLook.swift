import Foundation
import Imaging

extension BarcodeReader {
    /// What one camera frame showed: its codes, and whether every place in it that looks like a
    /// code was read.
    public struct FrameReading: Sendable, Equatable {
        public var codes: [Barcode]
        /// False when a region that looks like bars (or the search for such regions) was left for
        /// lack of time: the frame says nothing about a code it did not find.
        public var complete: Bool
    }

    /// The camera loop's look at one frame: the fast look (``read(_:)``), then, for each region that
    /// looks like a linear code's bars where the fast look read nothing (its centre outside every
    /// code read), the angled look of `--try-harder` (`BarRegion`, read along the bars). The angled
    /// look runs only when it can end before `deadline` (the next frame's, for a camera), judged by
    /// what it has cost on this reader so far: the newest frame never waits for it. With no
    /// deadline (a replay as fast as it goes) it always runs. Off with
    /// ``ReaderOptions/angledLook`` false, and with ``ReaderOptions/tryHarder``, which has its own.
    public func readFrame(_ image: GreyImage, until deadline: Date? = nil) -> FrameReading {
        let fast = read(image)
        guard options.angledLook, !options.tryHarder, let linear = angledSymbologies else {
            return FrameReading(codes: fast, complete: true)
        }
        guard frameCosts.fits(frameCosts.search, before: deadline) else {
            frameCosts.skipped()
            return FrameReading(codes: fast, complete: false)
        }
        var started = ContinuousClock.now
        let regions = BarRegion.find(in: image, limit: Self.angledRegionLimit).filter { region in
            !fast.contains { $0.outlineCovers(region.centre) }
        }
        frameCosts.searched(took: ContinuousClock.now - started)
        var angled: [Barcode] = []
        var complete = true
        for region in regions {
            let (width, rows) = Self.cutOutSize(region)
            let work = Double(width) * Double(rows + FrameLookCosts.refinementRows)
            guard frameCosts.fits(frameCosts.perUnit * work, before: deadline) else {
                frameCosts.skipped()
                complete = false
                break
            }
            started = .now
            Self.merge(
                angledCodes(in: region, of: image, linear: linear, densities: [1], combining: false), into: &angled)
            frameCosts.cutOut(work, took: ContinuousClock.now - started)
        }
        let new = angled.filter { code in
            !fast.contains { $0.symbology == code.symbology && $0.payload == code.payload }
        }
        return FrameReading(codes: fast + new, complete: complete)
    }
}

extension Barcode {
    /// The box around this code's outline, in pixels (nil without an outline).
    var outlineBox: (left: Int, right: Int, top: Int, bottom: Int)? {
        guard let first = points.first else { return nil }
        var (left, right, top, bottom) = (first.x, first.x, first.y, first.y)
        for point in points {
            (left, right) = (min(left, point.x), max(right, point.x))
            (top, bottom) = (min(top, point.y), max(bottom, point.y))
        }
        return (left, right, top, bottom)
    }

    /// Whether `point` lies within the box around this code's outline (with a margin of 8 pixels):
    /// a region of bars there is this code's.
    func outlineCovers(_ point: GreyImage.Vector) -> Bool {
        guard let (left, right, top, bottom) = outlineBox else { return false }
        let margin = 8.0
        return point.x >= Double(left) - margin && point.x <= Double(right) + margin
            && point.y >= Double(top) - margin && point.y <= Double(bottom) + margin
    }
}

/// What a reader's frame looks have cost so far, to judge whether the next fits before a deadline:
/// the region search per frame, and a cut-out per unit of work (its pixels, plus
/// ``refinementRows`` rows' worth for the angle's refinement), each a moving average that starts
/// from a cautious guess (a 1280×720 frame on a slow core).
struct FrameLookCosts: Sendable {
    /// Seconds the region search takes.
    var search = 0.004
    /// Seconds per unit of a cut-out's work.
    var perUnit = 100e-9
    /// The refinement's samples, counted as this many more rows of the cut-out.
    static let refinementRows = 60
    /// How much of each new measurement the averages take.
    static let weight = 0.25

    /// Whether something that takes about `seconds` ends before `deadline` (always, with none).
    func fits(_ seconds: Double, before deadline: Date?) -> Bool {
        guard let deadline else { return true }
        return Date().addingTimeInterval(seconds) <= deadline
    }

    /// A look left for lack of time: the estimates ease down (3% a frame), so one slow measurement (a
    /// stall of the machine) keeps the angled look off for a second or so, not until the station
    /// restarts; a look that really is too slow is measured again and pushed back up.
    mutating func skipped() {
        search *= 0.97
        perUnit *= 0.97
    }

    mutating func searched(took duration: Duration) {
        search += Self.weight * (Self.seconds(duration) - search)
    }

    mutating func cutOut(_ work: Double, took duration: Duration) {
        perUnit += Self.weight * (Self.seconds(duration) / max(1, work) - perUnit)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
