import Foundation
import Imaging
import TestSupport
import Testing

@testable import Scanning

/// The angled look's last try at a region (issue 38): parallel scan lines across the bars, combined
/// in bands into quiet profiles, read by ZBar from a thin strip. Synchronous tests: the work is
/// CPU-bound and stays off the task pool.
@Suite struct CombinedLinesTests {
    let reader = BarcodeReader(options: ReaderOptions(tryHarder: true))
    static let linear: Set<Symbology> = [.ean13, .upca, .ean8, .upce, .code39, .code128, .i25]

    /// The first region of `image` with its refined axis.
    static func region(of image: GreyImage) throws -> (BarRegion, GreyImage.Vector) {
        let region = try #require(BarRegion.find(in: image, limit: BarcodeReader.angledRegionLimit).first)
        return (region, BarcodeReader.refinedAcross(region, in: image))
    }

    @Test(arguments: [20.0, 45.0, 60.0, 135.0])
    func aTurnedCodeIsReadFromItsStrip(degrees: Double) throws {
        let image = AngledLookTests.turned(AngledLookTests.ean13(), by: degrees)
        let (region, across) = try Self.region(of: image)
        let strip = CombinedLineStrip(region, of: image, across: across)
        #expect(strip.image(sharpening: 2).height == BarcodeReader.combinedBands * BarcodeReader.combinedRepeats)
        let codes = reader.combinedLineCodes(in: region, of: image, across: across, linear: Self.linear)
        let code = try #require(codes.first)
        #expect(codes.count == 1)
        #expect(code.text == "5901234123457")
        #expect(code.quality >= BarcodeReader.combinedLeastRows)
        // The outline is turned back into the picture, around its middle where the code is.
        let xs = code.points.map(\.x)
        let ys = code.points.map(\.y)
        #expect((xs.min() ?? 0) < image.width / 2 && (xs.max() ?? 0) > image.width / 2)
        #expect((ys.min() ?? 0) < image.height / 2 + 20 && (ys.max() ?? 0) > image.height / 2 - 20)
    }

    @Test func theBandsAreQuieterThanOneScanLine() throws {
        // The same turned code with and without noise: each band's profile stays close to the
        // clean one, much closer than the noise on a single pixel.
        let clean = AngledLookTests.turned(AngledLookTests.ean13(), by: 40)
        let amplitude = 90
        let noisy = AngledLookTests.noisy(clean, amplitude: amplitude)
        let (region, across) = try Self.region(of: clean)
        let quiet = CombinedLineStrip(region, of: clean, across: across).image(sharpening: 0)
        let loud = CombinedLineStrip(region, of: noisy, across: across).image(sharpening: 0)
        #expect(quiet.width == loud.width && quiet.height == loud.height)
        var squares = 0.0
        for (clean, noisy) in zip(quiet.pixels, loud.pixels) {
            let difference = Double(clean) - Double(noisy)
            squares += difference * difference
        }
        let rms = (squares / Double(quiet.pixels.count)).squareRoot()
        // Uniform noise of ± 90 has an rms of 52 per pixel; a band of 4 lines halves it.
        #expect(rms < 30, "rms \(rms)")
    }

    // (At 60° this seed's noise leaves the cut-out a read of its own.)
    @Test(arguments: [30.0, 45.0])
    func aCodeTooNoisyForTheCutOutsIsReadFromCombinedLines(degrees: Double) throws {
        let image = AngledLookTests.noisy(
            AngledLookTests.turned(AngledLookTests.ean13(), by: degrees), amplitude: 125, seed: 7)
        let (region, _) = try Self.region(of: image)
        #expect(reader.angledCodes(in: region, of: image, linear: Self.linear, combining: false).isEmpty)
        let codes = reader.angledCodes(in: region, of: image, linear: Self.linear)
        #expect(codes.map(\.text) == ["5901234123457"])
    }

    @Test func stripesAndNoiseGiveNoCode() throws {
        var stripes = GreyImage(width: 300, height: 120, filledWith: 255)
        for y in 0..<120 {
            for x in 0..<300 where (x / 4) % 2 == 0 { stripes[x, y] = 20 }
        }
        for image in [
            AngledLookTests.turned(stripes, by: 35),
            AngledLookTests.noisy(AngledLookTests.turned(stripes, by: 50), amplitude: 90),
        ] {
            let (region, across) = try Self.region(of: image)
            #expect(reader.combinedLineCodes(in: region, of: image, across: across, linear: Self.linear).isEmpty)
        }
    }

    /// A strip of `height` rows, white but for `rows` rows of an upright EAN-13 at the top.
    static func strip(codeRows rows: Int, height: Int) -> GreyImage {
        let code = AngledLookTests.ean13().padded(by: 20)
        var strip = GreyImage(width: code.width, height: height, filledWith: 255)
        for y in 0..<rows {
            for x in 0..<code.width { strip[x, y] = code[x, code.height / 2] }
        }
        return strip
    }

    @Test func zxingReadsAStripOnTwoBandsNotOnOne() {
        let height = BarcodeReader.combinedBands * BarcodeReader.combinedRepeats
        let twoBands = Self.strip(codeRows: 2 * BarcodeReader.combinedRepeats, height: height)
        let oneBand = Self.strip(codeRows: BarcodeReader.combinedRepeats, height: height)
        // ZBar's row floor keeps both out; zxing-cpp takes the code seen on two bands only.
        #expect(
            reader.scan(twoBands, with: reader.rowScanner(for: Self.linear)).allSatisfy {
                $0.quality < BarcodeReader.combinedLeastRows
            })
        #expect(reader.secondEngineCode(in: [twoBands], wanted: Self.linear)?.text == "5901234123457")
        #expect(reader.secondEngineCode(in: [oneBand], wanted: Self.linear) == nil)
        #expect(reader.secondEngineCode(in: [oneBand, twoBands], wanted: Self.linear)?.text == "5901234123457")
        #expect(reader.secondEngineCode(in: [twoBands], wanted: [.code128]) == nil)
    }

    @Test func theSecondEngineReadsNoisyStripsOnlyWhenAskedFor() throws {
        // A turned code with noise that ZBar reads nothing from in the strips (this seed's): zxing-cpp
        // reads it, and a reader without the second engine reports nothing.
        let noisy = AngledLookTests.noisy(
            AngledLookTests.turned(AngledLookTests.ean13(moduleWidth: 3), by: 20), amplitude: 60, seed: 300)
        let (region, across) = try Self.region(of: noisy)
        let withEngine = reader.combinedLineCodes(in: region, of: noisy, across: across, linear: Self.linear)
        let zbarOnly = BarcodeReader(options: ReaderOptions(tryHarder: true, secondEngine: false))
            .combinedLineCodes(in: region, of: noisy, across: across, linear: Self.linear)
        let notThisRegion = reader.combinedLineCodes(
            in: region, of: noisy, across: across, linear: Self.linear, engine: false)
        #expect(withEngine.map(\.text) == ["5901234123457"])
        #expect(zbarOnly.isEmpty)
        #expect(notThisRegion.isEmpty)
    }

    @Test func zxingReadsABlurredCodeUnderTheWiderMasks() throws {
        // Modules of 3 pixels blurred three times: zxing-cpp reads nothing under the one-pixel masks
        // and reads the code under the two-pixel ones.
        var image = AngledLookTests.turned(AngledLookTests.ean13(moduleWidth: 3), by: 20)
        for _ in 0..<3 { image = image.blurred() }
        let (region, across) = try Self.region(of: image)
        let strip = CombinedLineStrip(region, of: image, across: across)
        func drawn(_ masks: [(amount: Double, radius: Double)]) -> [GreyImage] {
            masks.map { strip.image(sharpening: $0.amount, radius: $0.radius) }
        }
        #expect(reader.secondEngineCode(in: drawn(BarcodeReader.combinedSharpening), wanted: Self.linear) == nil)
        let wider = reader.secondEngineCode(in: drawn(BarcodeReader.combinedEngineSharpening), wanted: Self.linear)
        #expect(wider?.text == "5901234123457")
    }

    @Test func theMaskIsTheProfileAgainstItsMeanEitherSide() {
        let step: [Double] = [0, 0, 0, 90, 90, 90]
        #expect(CombinedLineStrip.sharpened(step, by: 1, radius: 1) == [0, 0, -30, 120, 90, 90])
        // Two samples either side; at the ends, the mean of the samples there are.
        #expect(CombinedLineStrip.sharpened(step, by: 2, radius: 2) == [0, -45, -72, 162, 135, 90])
        #expect(CombinedLineStrip.sharpened(step, by: 0, radius: 2) == step)
    }

    @Test func theExtremesAreTakenWithinTheReachEitherSide() {
        let values: [Double] = [5, 1, 9, 3, 3, 7, 2, 8, 8, 0]
        for reach in 0...4 {
            let (low, high) = CombinedLineStrip.extremes(values, reach: reach)
            for x in values.indices {
                let near = values[max(0, x - reach)...min(values.count - 1, x + reach)]
                #expect(low[x] == near.min() && high[x] == near.max(), "x \(x), reach \(reach)")
            }
        }
    }

    @Test func theStretchedStripShowsBarsUnderGlare() throws {
        // Bars of 4 pixels whose right half lies under glare: 20/230 on the left, 200/240 on the
        // right. Stretched, both halves span black to white; a flat stretch is drawn white.
        var glare = GreyImage(width: 400, height: 80, filledWith: 255)
        for y in 0..<80 {
            for x in 0..<400 {
                let bar = (x / 4) % 2 == 0
                glare[x, y] = x < 200 ? (bar ? 20 : 230) : (bar ? 200 : 240)
            }
        }
        let (region, across) = try Self.region(of: glare)
        let strip = CombinedLineStrip(region, of: glare, across: across)
        let stretched = strip.stretchedImage(sharpening: 0, radius: 1, reach: 12)
        let plain = strip.image(sharpening: 0)
        let row = stretched.height / 2
        func span(_ image: GreyImage, _ xs: Range<Int>) -> Int {
            let greys = xs.map { Int(image[$0, row]) }
            return (greys.max() ?? 0) - (greys.min() ?? 0)
        }
        // The strip's middle lies at the region's centre; its samples are half a pixel apart.
        let middle = stretched.width / 2
        let glared = (middle + 20)..<(middle + 60)
        #expect(span(plain, glared) < 60)
        #expect(span(stretched, glared) > 200)
        #expect(CombinedLineStrip.extremes([3, 3, 3], reach: 1).low == [3, 3, 3])
        let flat = CombinedLineStrip(
            region, of: GreyImage(width: 400, height: 80, filledWith: 128), across: across
        ).stretchedImage(sharpening: 0, radius: 1, reach: 12)
        #expect(flat.pixels.allSatisfy { $0 == 255 })
    }

    @Test func aBigPictureIsLookedAtAgainAtHalfSize() throws {
        // Noise of ± 200 on every pixel of a big picture: the full-size look reads nothing, the
        // half-size one (the noise averaged over 2 × 2 pixels) reads the code, and its outline is
        // given in the full picture's pixels, around the code in its middle.
        let image = AngledLookTests.noisy(
            AngledLookTests.turned(AngledLookTests.ean13(moduleWidth: 4, height: 200), by: 30, margin: 150),
            amplitude: 200, seed: 1)
        #expect(image.width * image.height >= BarcodeReader.angledHalvedLookLimit)
        let linear = try #require(reader.angledSymbologies)
        #expect(reader.angledCodes(in: image, linear: linear).isEmpty)
        let codes = reader.angledLook(image)
        #expect(codes.map(\.text) == ["5901234123457"])
        let xs = codes.flatMap(\.points).map(\.x)
        let ys = codes.flatMap(\.points).map(\.y)
        #expect((xs.min() ?? 0) < image.width / 2 && (xs.max() ?? 0) > image.width / 2)
        #expect((ys.min() ?? 0) < image.height / 2 && (ys.max() ?? 0) > image.height / 2)
        #expect((xs.max() ?? 0) > image.width * 2 / 3, "outline in the full picture, not the half")
        // A picture under the limit gets no second look: the same code at half size, as noisy.
        let small = image.halved()
        #expect(small.width * small.height < BarcodeReader.angledHalvedLookLimit)
        #expect(reader.angledLook(small).map(\.text) == reader.angledCodes(in: small, linear: linear).map(\.text))
    }

    @Test func theCameraLoopDoesNotCombineLines() throws {
        // readFrame's look is bounded by the frame period: the cut-out only.
        let image = AngledLookTests.noisy(
            AngledLookTests.turned(AngledLookTests.ean13(), by: 45), amplitude: 125, seed: 7)
        let camera = BarcodeReader(options: ReaderOptions())
        #expect(camera.readFrame(image).codes.isEmpty)
    }
}
