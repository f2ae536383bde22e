import CZBar
import Foundation
import Imaging

extension BarcodeReader {
    /// The try-harder look at linear codes turned away from the image axes: each ``BarRegion`` the
    /// picture's gradients show (at most ``angledRegionLimit``, biggest first) is cut out of the
    /// full-size picture (and, when that reads nothing in a picture of at least
    /// ``angledHalvedLookLimit`` pixels, of its half) with its bars upright, a quiet zone of
    /// ``angledMarginFraction`` of its length either side, and handed to ZBar, which scans the
    /// cut-out's rows only. Each cut-out pixel is the
    /// mean of ``angledAveraging`` samples along the bars: parallel scan lines combined, for noisy and
    /// low-resolution photos. ZBar's checksums and quiet-zone rules are as strict as on any look.
    /// The codes' outlines are turned back into the picture's coordinates.
    func angledLook(_ image: GreyImage) -> [Barcode] {
        guard let linear = angledSymbologies else { return [] }
        let found = angledCodes(in: image, linear: linear)
        guard found.isEmpty, image.width * image.height >= Self.angledHalvedLookLimit else { return found }
        // A big picture that reads nothing is looked at again at half size: its blur and its
        // cells are halved, so a code the gradients saw in pieces (a fold, glare, a curve) is one
        // region there, and the strips' masks reach across blur twice as wide.
        let half = image.halved()
        return angledCodes(in: half, linear: linear, regions: Self.angledHalvedRegionLimit).map { code in
            code.mappingPoints { point in
                Barcode.Point(
                    x: min(image.width - 1, point.x * image.width / half.width),
                    y: min(image.height - 1, point.y * image.height / half.height))
            }
        }
    }

    /// The codes of every region the angled look cuts out of `image` (see ``angledLook(_:)``).
    func angledCodes(
        in image: GreyImage, linear: Set<Symbology>, regions limit: Int = angledRegionLimit
    ) -> [Barcode] {
        var found: [Barcode] = []
        // Regions are taken biggest first; the long straight edge of a box, a label or a page is not
        // a code, and would take a big region's place (on the turned corpus, the picture's own edges).
        let regions = BarRegion.find(in: image, limit: Self.angledRegionSearchLimit).filter { !$0.looksLikeAnEdge }
        for (index, region) in regions.prefix(limit).enumerated() {
            let engine = index < Self.angledEngineRegionLimit
            Self.merge(angledCodes(in: region, of: image, linear: linear, engine: engine), into: &found)
        }
        return found
    }

    /// The least picture (in pixels) the angled look looks at again at half size when it reads
    /// nothing at full size: ``fullSizeRetryLimit``, from which the retry passes halve pictures too.
    /// The corpus: +3 codes (a code cut by a fold, two curved and blurred), no misread; the corpus
    /// turned 15°–75°: +1 to +5 codes an angle, the same misreads.
    public static let angledHalvedLookLimit = fullSizeRetryLimit
    /// The regions the half-size look cuts out, biggest first: with 4, the corpus read the same
    /// and the turned corpus one code more at 75° alone; with 1, the same as 2.
    public static let angledHalvedRegionLimit = 2

    /// The linear symbologies wanted that ZBar reads, for the angled look; nil when there are none.
    var angledSymbologies: Set<Symbology>? {
        let linear = options.symbologies.subtracting(Symbology.zbarLacks).subtracting([.qrcode, .sqcode])
        return linear.isEmpty ? nil : linear
    }

    /// The codes ZBar reads in `region`'s upright cut-out, their outlines in `image`'s coordinates.
    func angledCodes(
        in region: BarRegion, of image: GreyImage, linear: Set<Symbology>, densities: [Double] = angledDensities,
        combining: Bool = true, engine: Bool = true
    ) -> [Barcode] {
        let across = Self.refinedAcross(region, in: image)
        for density in densities {
            let cut = Self.cutOut(region, of: image, across: across, density: density)
            // Code 128 is left out of the sub-pixel look: on the corpus turned 15° and 75° it gave ZBar's
            // text of a code with FNC4 (`ssss1234`), which zxing-cpp could not restore from the cut-out.
            let wanted = density > 1 ? linear.subtracting([.code128]) : linear
            let least = density > 1 ? Self.angledSubpixelLines : 1
            guard !wanted.isEmpty else { continue }
            let codes = finished(scan(cut.image, with: rowScanner(for: wanted))).filter { code in
                let short = [.ean8, .upce].contains(code.symbology)
                return code.quality >= (short ? max(least, Self.angledShortCodeLines) : least)
            }
            guard !codes.isEmpty else { continue }
            let restored = options.secondEngine ? restoringCode128Extended(codes, in: cut.image) : codes
            return restored.map { code in code.mappingPoints { point in cut.pointInImage(point, within: image) } }
        }
        return combining
            ? combinedLineCodes(in: region, of: image, across: across, linear: linear, engine: engine) : []
    }

    /// The cut-outs `--try-harder` reads a region in, samples per pixel across the bars: one, then,
    /// when it reads nothing, two (bilinear between pixels), where ZBar finds the edges of bars one
    /// or two pixels wide that it loses at one. Turned corpus: +8 to +14 codes at 30–60°.
    static let angledDensities: [Double] = [1, 2]
    /// The rows of a sub-pixel cut-out a code must be read on: interpolated bars give EAN/UPC
    /// misreads on fewer (on the corpus turned 45° and 60°, an EAN-13 read on 10 and 13 rows).
    public static let angledSubpixelLines = 16

    /// Adds `codes` to `found`, each code once: whole, not also a piece of it (see ``covers(_:_:)``).
    static func merge(_ codes: [Barcode], into found: inout [Barcode]) {
        for code in codes where !found.contains(where: { covers($0, code) }) {
            found.removeAll { covers(code, $0) }
            found.append(code)
        }
    }

    /// Whether `code` says all `other` says: the same symbology, and `other`'s payload is part of
    /// `code`'s. A scan line that leaves a code through the end of its bars can read a piece of it as
    /// a shorter code (ITF has no length or checksum of its own); only the whole is reported.
    static func covers(_ code: Barcode, _ other: Barcode) -> Bool {
        guard code.symbology == other.symbology, code.payload.count >= other.payload.count else { return false }
        if code.payload == other.payload { return true }
        return (0...(code.payload.count - other.payload.count)).contains { start in
            code.payload[start..<(start + other.payload.count)].elementsEqual(other.payload)
        }
    }

    /// The rows of a cut-out an EAN-8 or UPC-E must be read on: eight digits have little to check a
    /// misread against, and on the corpus turned 45° a UPC-A's piece read on 4 rows came out as a UPC-E.
    public static let angledShortCodeLines = 8
    /// At most this many regions are cut out of one picture.
    public static let angledRegionLimit = 4
    /// The biggest regions whose combined-line strips zxing-cpp looks at (the others' only ZBar):
    /// on the corpus every code zxing-cpp read from a strip was in the biggest region, on the corpus
    /// turned 30–60° all were in the two biggest (the biggest alone lost 1–3 codes an angle), and
    /// the smaller regions of the pictures nothing is read in would cost the time.
    public static let angledEngineRegionLimit = 2
    /// At most this many regions are found, before edges are set aside.
    static let angledRegionSearchLimit = 16
    /// The quiet zone added either side of a region, as a fraction of its length (plus 8 pixels).
    public static let angledMarginFraction = 0.12
    /// The samples along the bars averaged into each pixel of a cut-out.
    public static let angledAveraging = 3
    /// The most rows a cut-out has: enough scan lines for ZBar; more cost time and find nothing new.
    public static let angledMaxRows = 120

    /// A region of a picture, resampled with its bars upright.
    struct CutOut {
        var image: GreyImage
        var origin: GreyImage.Vector
        var across: GreyImage.Vector
        var down: GreyImage.Vector

        /// Where `point` of the cut-out lies in `picture`, kept inside it.
        func pointInImage(_ point: Barcode.Point, within picture: GreyImage) -> Barcode.Point {
            let x = origin.x + Double(point.x) * across.x + Double(point.y) * down.x
            let y = origin.y + Double(point.x) * across.y + Double(point.y) * down.y
            return Barcode.Point(
                x: min(picture.width - 1, max(0, Int(x.rounded()))),
                y: min(picture.height - 1, max(0, Int(y.rounded()))))
        }
    }

    /// The width and rows of `region`'s cut-out: its length and a quiet zone either side, its bars'
    /// height (at most ``angledMaxRows``).
    static func cutOutSize(_ region: BarRegion) -> (width: Int, rows: Int) {
        let margin = 8 + angledMarginFraction * region.length
        let rows = max(8, min(angledMaxRows, Int(barHeight(region).rounded())))
        return (Int((region.length + 2 * margin).rounded(.up)), rows)
    }

    /// The bars themselves, without the cell the smoothing adds beyond them each way.
    private static func barHeight(_ region: BarRegion) -> Double {
        max(region.cellPixels, region.height - 2 * region.cellPixels)
    }

    static func cutOut(
        _ region: BarRegion, of image: GreyImage, across unit: GreyImage.Vector? = nil, density: Double = 1
    ) -> CutOut {
        let direction = unit ?? refinedAcross(region, in: image)
        let along = GreyImage.Vector(x: -direction.y, y: direction.x)
        let across = GreyImage.Vector(x: direction.x / density, y: direction.y / density)
        let (size, rows) = cutOutSize(region)
        let width = Int((Double(size) * density).rounded())
        let barHeight = Self.barHeight(region)
        let step = barHeight / Double(rows)
        let down = GreyImage.Vector(x: along.x * step, y: along.y * step)
        let origin = GreyImage.Vector(
            x: region.centre.x - Double(width) / 2 * across.x - Double(rows) / 2 * down.x,
            y: region.centre.y - Double(width) / 2 * across.y - Double(rows) / 2 * down.y)
        let cut = image.sampled(
            origin: origin, across: across, down: down, width: width, height: rows, averaging: angledAveraging)
        return CutOut(image: cut, origin: origin, across: across, down: down)
    }

    /// The direction across `region`'s bars, refined from the gradients' estimate (which leans
    /// towards the image axes by a few degrees when bars are one or two pixels wide): the angle,
    /// within ``angledSearchDegrees``, at which a few scan lines across the bars agree best, that is,
    /// at which their mean has the sharpest edges. Searched in steps of 1°, then of ¼°.
    static func refinedAcross(_ region: BarRegion, in image: GreyImage) -> GreyImage.Vector {
        var best = atan2(region.across.y, region.across.x)
        var bestScore = -1.0
        for (step, count) in [(1.0, Int(angledSearchDegrees)), (0.25, 3)] {
            let centre = best
            for index in -count...count {
                let angle = centre + Double(index) * step * .pi / 180
                let score = profileSharpness(region, at: angle, in: image)
                if score > bestScore {
                    bestScore = score
                    best = angle
                }
            }
        }
        return GreyImage.Vector(x: cos(best), y: sin(best))
    }

    /// How far the refinement may turn the gradients' estimate, either way.
    public static let angledSearchDegrees = 6.0

    /// The sum of squared steps of the mean of 7 scan lines across `region` at `angle`, spread over the
    /// middle half of its bars' height.
    private static func profileSharpness(_ region: BarRegion, at angle: Double, in image: GreyImage) -> Double {
        let across = GreyImage.Vector(x: cos(angle), y: sin(angle))
        let lines = 7
        let spread = max(1, region.height - 2 * region.cellPixels) / 2
        let gap = spread / Double(lines)
        let down = GreyImage.Vector(x: -across.y * gap, y: across.x * gap)
        let width = max(2, Int(region.length))
        let halfWidth = Double(width) / 2
        let halfLines = Double(lines - 1) / 2
        let origin = GreyImage.Vector(
            x: region.centre.x - halfWidth * across.x - halfLines * down.x,
            y: region.centre.y - halfWidth * across.y - halfLines * down.y)
        let cut = image.sampled(origin: origin, across: across, down: down, width: width, height: lines)
        var profile = [Int](repeating: 0, count: width)
        for line in 0..<lines {
            for x in 0..<width { profile[x] += Int(cut.pixels[line * width + x]) }
        }
        var score = 0.0
        for x in 1..<width {
            let step = Double(profile[x] - profile[x - 1])
            score += step * step
        }
        return score
    }
}
