import Foundation
import Imaging

extension BarcodeReader {
    /// The last look at a region whose cut-outs read nothing (issue 38): many parallel scan lines
    /// across its bars, sampled at ``combinedDensity`` positions per pixel along the found axis, are
    /// averaged in bands of ``combinedLinesPerBand`` neighbouring lines into quiet profiles; each
    /// profile is sharpened (a low-noise profile can take it, a single scan line cannot) and drawn on
    /// ``combinedRepeats`` rows of a thin strip that ZBar reads as it reads any picture. The strip
    /// reaches ``combinedLengthFactor`` times the region's length, since the gradients often see only
    /// part of a blurred code. ZBar's checksums and quiet-zone rules stay as strict as anywhere, a code
    /// must be read on ``combinedLeastRows`` rows, and two different readings of one symbology cancel.
    /// Code 128 is left out, as from the sub-pixel cut-out (ZBar drops its FNC4). Strips ZBar reads
    /// nothing in are handed to zxing-cpp when `engine` says so (see ``secondEngineCode(in:wanted:)``).
    func combinedLineCodes(
        in region: BarRegion, of image: GreyImage, across: GreyImage.Vector, linear: Set<Symbology>,
        engine: Bool = true
    ) -> [Barcode] {
        let wanted = linear.subtracting([.code128])
        guard !wanted.isEmpty else { return [] }
        let strip = CombinedLineStrip(region, of: image, across: across)
        var drawnStrips: [GreyImage] = []
        for sharpening in Self.combinedSharpening {
            let drawn = strip.image(sharpening: sharpening.amount, radius: sharpening.radius)
            drawnStrips.append(drawn)
            let codes = scan(drawn, with: rowScanner(for: wanted))
            // The row floor first, then the lone add-on guard: an add-on whose main code fell short of
            // the floor is alone.
            let agreed = finished(
                codes.filter { code in
                    code.quality >= Self.combinedLeastRows
                        && !codes.contains { other in
                            other.symbology == code.symbology && !Self.covers(code, other)
                                && !Self.covers(other, code)
                        }
                })
            if !agreed.isEmpty {
                return agreed.map { code in code.mappingPoints { point in strip.pointInImage(point, within: image) }
                }
            }
        }
        guard options.secondEngine, engine else { return [] }
        let (amount, radius) = Self.combinedSharpening[0]
        let reach = region.length * Self.combinedStretchReach
        let other =
            secondEngineCode(in: drawnStrips, wanted: wanted)
            ?? secondEngineCode(
                in: Self.combinedEngineSharpening.map { strip.image(sharpening: $0.amount, radius: $0.radius) },
                wanted: wanted)
            ?? secondEngineCode(
                in: [strip.stretchedImage(sharpening: amount, radius: radius, reach: reach)], wanted: wanted)
        return other.map { [$0.mappingPoints { point in strip.pointInImage(point, within: image) }] } ?? []
    }

    /// zxing-cpp's look at strips ZBar read nothing in (in ``combinedLineCodes(in:of:across:linear:)``:
    /// the same strips, then ``combinedEngineSharpening``'s, then one stretched to local contrast):
    /// its edge finding and pattern matching differ from ZBar's, and on blurred EAN/UPC photos it
    /// reads some that ZBar cannot. A code must be read on ``combinedEngineRows`` rows (on two bands
    /// at least). Corpus: +5 codes, no misread.
    func secondEngineCode(in strips: [GreyImage], wanted: Set<Symbology>) -> Barcode? {
        let engine = wanted.intersection(ZXingReader.readable)
        guard !engine.isEmpty else { return nil }
        for drawn in strips {
            if let code = ZXingReader.read(
                drawn, looking: engine, minLineCount: Self.combinedEngineRows, rotating: false
            )
            .flatMap(report) {
                return code
            }
        }
        return nil
    }

    /// The bands of combined scan lines in a strip, spread over ``combinedSpan`` of the bars' height.
    public static let combinedBands = 16
    /// The neighbouring scan lines averaged into each band's profile.
    public static let combinedLinesPerBand = 4
    /// The rows each band's profile is drawn on: two, so that ZBar reads it both ways.
    public static let combinedRepeats = 2
    /// The share of the bars' height the bands cover (the ends of bars are often torn or printed over).
    public static let combinedSpan = 0.8
    /// The samples per pixel across the bars (bilinear between pixels).
    public static let combinedDensity = 2.0
    /// The unsharp masks tried in turn on the profiles: the profile plus `amount` times its
    /// difference from its mean over `radius` pixels either side. Turned corpus at 45°: 2 alone read
    /// 196 of 246, 2 then 1 read 197; 3 gave fewer codes, 2.5 a misread.
    public static let combinedSharpening: [(amount: Double, radius: Double)] = [(2, 1), (1, 1)]
    /// Wider masks, for zxing-cpp only, after it read nothing in the strips above: blurred EAN/UPC
    /// photos whose thin bars a one-pixel mask leaves grey (corpus: +3 codes). ZBar read a UPC-A it
    /// misreads upright from them (the corpus turned 15° and 60°), so it is not shown them.
    public static let combinedEngineSharpening: [(amount: Double, radius: Double)] = [(2, 2), (1, 2)]
    /// How far either side of each sample the stretched strip zxing-cpp is shown last looks for its
    /// darkest and lightest grey, in the region's lengths (see
    /// ``CombinedLineStrip/stretchedImage(sharpening:radius:reach:)``). The corpus: 633 of 685 at
    /// 0.075, 632 at 0.1 (and fewer on the turned corpus), 9 of the 33 missed images at 0.05 where
    /// 0.075 read 11.
    public static let combinedStretchReach = 0.075
    /// How far the strip reaches across the bars, in the region's lengths (plus the cut-out's quiet
    /// zones): the gradients often mark only part of a blurred code (turned corpus at 45°: 1 read
    /// 189 codes, 1.6 read 191, 2 read 195 with the rest unchanged, 2.5 read 194).
    public static let combinedLengthFactor = 2.0
    /// The rows of the strip (of ``combinedBands`` × ``combinedRepeats``) a code must be read on.
    /// On the corpus turned 15°, 8 let through a UPC-A photo read as the EAN-13 ZBar misreads it
    /// as upright; 10 keeps every misread out that was not there before.
    public static let combinedLeastRows = 10
    /// The rows of a strip zxing-cpp must read a code on: two bands' ``combinedRepeats``, which is
    /// ``shortCodeLineCount`` too, so one call asks for every symbology. On the corpus, one band (2
    /// rows) gave 3 more codes than two bands, on evidence too thin to keep; 3 rows read what 4 read.
    public static let combinedEngineRows = 2 * combinedRepeats
}

/// A region's bars as quiet profiles: ``BarcodeReader/combinedBands`` bands spread over the middle
/// of the bars, each the mean of neighbouring scan lines across them, drawn (sharpened) as a thin
/// picture of ``BarcodeReader/combinedRepeats`` rows per band. Sampled once for every sharpening.
struct CombinedLineStrip {
    /// Each band's profile: the mean grey of its scan lines at each sample across the bars.
    var profiles: [[Double]]
    /// The samples of a profile.
    var width: Int
    /// Where the first sample of the first line lies in the picture, the step between samples,
    /// and the step between the drawn rows (spread over the bands' span).
    var origin: GreyImage.Vector
    var across: GreyImage.Vector
    var rowStep: GreyImage.Vector

    init(_ region: BarRegion, of image: GreyImage, across unit: GreyImage.Vector) {
        typealias Reader = BarcodeReader
        let density = Reader.combinedDensity
        let along = GreyImage.Vector(x: -unit.y, y: unit.x)
        across = GreyImage.Vector(x: unit.x / density, y: unit.y / density)
        let (size, _) = Reader.cutOutSize(region)
        let reach = Double(size) + region.length * (Reader.combinedLengthFactor - 1)
        width = Int((reach * density).rounded())
        let barHeight = max(region.cellPixels, region.height - 2 * region.cellPixels)
        let bands = Reader.combinedBands
        let linesPerBand = Reader.combinedLinesPerBand
        let lineCount = bands * linesPerBand
        let gap = barHeight * Reader.combinedSpan / Double(lineCount)
        let down = GreyImage.Vector(x: along.x * gap, y: along.y * gap)
        origin = GreyImage.Vector(
            x: region.centre.x - Double(width) / 2 * across.x - Double(lineCount) / 2 * down.x,
            y: region.centre.y - Double(width) / 2 * across.y - Double(lineCount) / 2 * down.y)
        let lines = image.sampled(origin: origin, across: across, down: down, width: width, height: lineCount)
        let rowScale = Double(lineCount) / Double(bands * Reader.combinedRepeats)
        rowStep = GreyImage.Vector(x: down.x * rowScale, y: down.y * rowScale)
        let width = width
        profiles = (0..<bands).map { band in
            var profile = [Double](repeating: 0, count: width)
            for line in (band * linesPerBand)..<((band + 1) * linesPerBand) {
                for x in 0..<width { profile[x] += Double(lines.pixels[line * width + x]) }
            }
            return profile.map { $0 / Double(linesPerBand) }
        }
    }

    /// The strip ZBar reads: each band's profile sharpened by `sharpening` over `radius` pixels
    /// either side (see ``sharpened(_:by:radius:)``) on ``BarcodeReader/combinedRepeats`` rows.
    func image(sharpening: Double, radius: Double = 1) -> GreyImage {
        let repeats = BarcodeReader.combinedRepeats
        let samples = Int((BarcodeReader.combinedDensity * radius).rounded())
        var pixels = [UInt8](repeating: 255, count: width * profiles.count * repeats)
        for (band, profile) in profiles.enumerated() {
            let shaped = Self.sharpened(profile, by: sharpening, radius: samples)
            let row = band * repeats * width
            for x in 0..<width { pixels[row + x] = UInt8(min(255, max(0, shaped[x] + 0.5))) }
            for copy in 1..<repeats {
                pixels[(row + copy * width)..<(row + (copy + 1) * width)] = pixels[row..<(row + width)]
            }
        }
        return GreyImage(width: width, height: profiles.count * repeats, pixels: pixels)
    }

    /// The strip with each band's profile sharpened (as in ``image(sharpening:radius:)``) and then
    /// stretched to black–white between the darkest and the lightest grey within `reach` pixels
    /// either side of each sample: local contrast, for bars under glare or in a shadow that reaches
    /// over part of the code. A stretch of profile spanning less than ``leastStretchedRange`` grey
    /// levels is drawn white (nothing there but noise to stretch).
    func stretchedImage(sharpening: Double, radius: Double, reach: Double) -> GreyImage {
        let repeats = BarcodeReader.combinedRepeats
        let samples = Int((BarcodeReader.combinedDensity * radius).rounded())
        let window = max(1, Int((BarcodeReader.combinedDensity * reach).rounded()))
        var pixels = [UInt8](repeating: 255, count: width * profiles.count * repeats)
        for (band, profile) in profiles.enumerated() {
            let shaped = Self.sharpened(profile, by: sharpening, radius: samples)
            let (low, high) = Self.extremes(shaped, reach: window)
            let row = band * repeats * width
            for x in 0..<width where high[x] - low[x] >= Self.leastStretchedRange {
                pixels[row + x] = UInt8(min(255, max(0, (shaped[x] - low[x]) / (high[x] - low[x]) * 255 + 0.5)))
            }
            for copy in 1..<repeats {
                pixels[(row + copy * width)..<(row + (copy + 1) * width)] = pixels[row..<(row + width)]
            }
        }
        return GreyImage(width: width, height: profiles.count * repeats, pixels: pixels)
    }

    /// The least range of grey, darkest to lightest, that ``stretchedImage(sharpening:radius:reach:)``
    /// stretches.
    static let leastStretchedRange = 15.0

    /// The least and the greatest of `values` within `reach` samples either side of each one, in
    /// one pass each (a queue of the candidates, as for any sliding-window minimum).
    static func extremes(_ values: [Double], reach: Int) -> (low: [Double], high: [Double]) {
        func sliding(_ better: (Double, Double) -> Bool) -> [Double] {
            var result = [Double](repeating: 0, count: values.count)
            var queue: [Int] = []
            var head = 0
            var next = 0
            for x in values.indices {
                // Take in every sample up to x + reach, dropping those it beats from the queue's tail.
                while next < values.count && next <= x + reach {
                    while queue.count > head, !better(values[queue[queue.count - 1]], values[next]) {
                        queue.removeLast()
                    }
                    queue.append(next)
                    next += 1
                }
                while queue[head] < x - reach { head += 1 }
                result[x] = values[queue[head]]
            }
            return result
        }
        return (sliding(<), sliding(>))
    }

    /// Where `point` of the drawn strip lies in `picture`, kept inside it.
    func pointInImage(_ point: Barcode.Point, within picture: GreyImage) -> Barcode.Point {
        let empty = GreyImage(width: 0, height: 0, pixels: [])
        return BarcodeReader.CutOut(image: empty, origin: origin, across: across, down: rowStep)
            .pointInImage(point, within: picture)
    }

    /// `profile` plus `amount` times its difference from its mean over `radius` samples either side
    /// (an unsharp mask), not clamped.
    static func sharpened(_ profile: [Double], by amount: Double, radius: Int) -> [Double] {
        guard amount > 0, radius > 0, !profile.isEmpty else { return profile }
        // Running sums: sums[i] is the sum of the first i samples.
        var sums = [Double](repeating: 0, count: profile.count + 1)
        for (index, value) in profile.enumerated() { sums[index + 1] = sums[index] + value }
        return profile.indices.map { x in
            let low = max(0, x - radius)
            let high = min(profile.count - 1, x + radius)
            let mean = (sums[high + 1] - sums[low]) / Double(high - low + 1)
            return profile[x] + amount * (profile[x] - mean)
        }
    }
}
