import Foundation
import Imaging
import TestSupport
import Testing

@testable import Scanning

/// The angled look of `--try-harder`: linear codes turned away from the image axes, drawn here and
/// turned by our own resampling, are found from their gradients and read along their bars.
@Suite struct AngledLookTests {
    let fast = BarcodeReader()
    let tryHarder = BarcodeReader(options: ReaderOptions(tryHarder: true))
    let withoutAngledLook = BarcodeReader(options: ReaderOptions(tryHarder: true, angledLook: false))

    static func ean13(moduleWidth: Int = 2, height: Int = 60) -> GreyImage {
        let drawn = BarcodeRenderer.ean13("590123412345", moduleWidth: moduleWidth, height: height)
        return GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
    }

    static func itf(moduleWidth: Int = 2) -> GreyImage {
        let drawn = BarcodeRenderer.itf("12345678901231", moduleWidth: moduleWidth, height: 60)
        return GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels)
    }

    /// `image` on a white page of `margin` pixels each side, turned by `degrees`.
    static func turned(_ image: GreyImage, by degrees: Double, margin: Int = 40) -> GreyImage {
        image.padded(by: margin).rotated(byDegrees: degrees)
    }

    /// `image` with seeded noise of ± `amplitude` grey levels on every pixel.
    static func noisy(_ image: GreyImage, amplitude: Int, seed: UInt32 = 12345) -> GreyImage {
        var image = image
        var state = seed
        for index in image.pixels.indices {
            state = state &* 1_103_515_245 &+ 12345
            let noise = Int((state >> 16) % UInt32(2 * amplitude + 1)) - amplitude
            image.pixels[index] = UInt8(clamping: Int(image.pixels[index]) + noise)
        }
        return image
    }

    static let angles: [Double] = Array(stride(from: 15.0, through: 75.0, by: 5.0)) + [105, 135, 165]

    @Test(arguments: angles)
    func anEAN13TurnedAnyWayIsRead(degrees: Double) throws {
        let image = Self.turned(Self.ean13(), by: degrees)
        let found = try #require(tryHarder.read(image).first)
        #expect(found.text == "5901234123457")
        // Within 20° of an axis, ZBar's rows or columns may read it already; not between.
        let axis = abs(degrees - 90) > 45 ? min(degrees, 180 - degrees) : abs(degrees - 90)
        guard axis > 20 else { return }
        #expect(withoutAngledLook.read(image).isEmpty)
        // The outline is in the turned picture's coordinates, around its middle where the code is.
        let xs = found.points.map(\.x)
        let ys = found.points.map(\.y)
        #expect(!xs.isEmpty)
        #expect((xs.min() ?? 0) < image.width / 2 && (xs.max() ?? 0) > image.width / 2)
        #expect((ys.min() ?? 0) < image.height / 2 + 20 && (ys.max() ?? 0) > image.height / 2 - 20)
    }

    // At 15° and 75° ZBar's first look reads two 8-digit pieces of this ITF (zbarimg does too): a
    // look that finds something is final, so the angled look is never asked.
    @Test(arguments: [25.0, 30.0, 45.0, 60.0, 65.0])
    func anITFTurnedIsReadWhole(degrees: Double) throws {
        let image = Self.turned(Self.itf(), by: degrees)
        #expect(tryHarder.read(image).map(\.text) == ["12345678901231"])
    }

    @Test(arguments: [20.0, 45.0, 70.0])
    func aNoisyLowResolutionCodeIsReadAlongItsBars(degrees: Double) throws {
        // Modules of 2 pixels under heavy noise: one scan line across the bars is not enough.
        let image = Self.noisy(Self.turned(Self.ean13(), by: degrees), amplitude: 70)
        #expect(withoutAngledLook.read(image).isEmpty)
        #expect(tryHarder.read(image).map(\.text) == ["5901234123457"])
    }

    @Test(arguments: [0.0, 30.0, 45.0, 80.0, 120.0])
    func theRegionIsFoundWithItsAngle(degrees: Double) throws {
        let image = Self.turned(Self.ean13(moduleWidth: 3, height: 90), by: degrees)
        let region = try #require(BarRegion.find(in: image, limit: 4).first)
        // Turned clockwise on screen by θ, the code's run across its bars points θ below the x axis.
        // The gradients' estimate is within a few degrees, the refined one within one.
        func error(_ found: Double) -> Double {
            let difference = abs(found - degrees.truncatingRemainder(dividingBy: 180))
            return min(difference, 180 - difference)
        }
        #expect(error(region.degrees) < BarcodeReader.angledSearchDegrees, "found \(region.degrees)°")
        var refined = region
        refined.across = BarcodeReader.refinedAcross(region, in: image)
        #expect(error(refined.degrees) < 1, "refined \(refined.degrees)°")
        #expect(abs(region.centre.x - Double(image.width) / 2) < 20)
        #expect(abs(region.centre.y - Double(image.height) / 2) < 20)
        // 95 modules of 3 pixels long, 74 pixels of bars high (cells round it up).
        #expect(region.length > 250 && region.length < 340, "length \(region.length)")
    }

    @Test func noiseAndStripesAreNotReadAsCodes() {
        let grey = GreyImage(width: 400, height: 300, filledWith: 128)
        for seed: UInt32 in [1, 2, 3] {
            #expect(tryHarder.read(Self.noisy(grey, amplitude: 120, seed: seed)).isEmpty)
        }
        // Even stripes are bars with nothing to decode: regions, but no code.
        var stripes = GreyImage(width: 300, height: 120, filledWith: 255)
        for y in 0..<120 {
            for x in 0..<300 where (x / 4) % 2 == 0 { stripes[x, y] = 20 }
        }
        let turned = Self.turned(stripes, by: 35)
        #expect(!BarRegion.find(in: turned, limit: 4).isEmpty)
        #expect(tryHarder.read(turned).isEmpty)
        #expect(tryHarder.read(Self.noisy(turned, amplitude: 60)).isEmpty)
    }

    @Test func aCodeTheFastLookReadsIsNotLookedAtAgain() {
        // Upright: read by the first look, one code, its outline as ZBar gave it.
        let image = Self.ean13().padded(by: 20)
        #expect(tryHarder.read(image) == fast.read(image))
        #expect(fast.read(image).count == 1)
    }

    @Test func theFastLookDoesNotReadATurnedCode() {
        // What this suite relies on: at 45° ZBar's rows and columns read nothing.
        #expect(fast.read(Self.turned(Self.ean13(), by: 45)).isEmpty)
    }
}
