import Foundation
import Imaging
import TestSupport
import Testing

@testable import Scanning

/// The camera loop's look at a frame (`readFrame`): the fast look, then the angled look at the
/// regions of bars the fast look read nothing in, only when it fits before the deadline. Serialized:
/// each test takes seconds of CPU on a thread of the task pool, which the parallel suite shares.
@Suite(.serialized) struct FrameLookTests {
    static let ean13 = AngledLookTests.ean13()
    static let itf = AngledLookTests.itf()

    /// A 640×360 grey bench with each of `codes` (a picture and the angle it is turned by) pasted
    /// with its centre at the given point.
    static func bench(_ codes: [(image: GreyImage, degrees: Double, x: Int, y: Int)]) -> GreyImage {
        var frame = GreyImage(width: 640, height: 360, filledWith: 170)
        for code in codes {
            let turned = code.image.padded(by: 10).rotated(byDegrees: code.degrees, background: 170)
            for y in 0..<turned.height {
                for x in 0..<turned.width {
                    let (fx, fy) = (code.x - turned.width / 2 + x, code.y - turned.height / 2 + y)
                    if fx >= 0, fx < frame.width, fy >= 0, fy < frame.height { frame[fx, fy] = turned[x, y] }
                }
            }
        }
        return frame
    }

    @Test func aTurnedCodeIsReadAlongItsBarsWithNoDeadline() {
        let reader = BarcodeReader()
        let frame = Self.bench([(Self.ean13, 40, 320, 180)])
        #expect(reader.read(frame).isEmpty)
        let reading = reader.readFrame(frame)
        #expect(reading.codes.map(\.text) == ["5901234123457"])
        #expect(reading.complete)
    }

    @Test func pastTheDeadlineTheAngledLookIsLeftAndTheFrameIsNotWhole() {
        let reader = BarcodeReader()
        let frame = Self.bench([(Self.ean13, 40, 320, 180)])
        let late = reader.readFrame(frame, until: Date().addingTimeInterval(-0.01))
        #expect(late.codes.isEmpty)
        #expect(!late.complete)
        // Half a minute ahead is time enough, even for costs learnt on a loaded machine; they keep it so.
        for _ in 0..<3 {
            let inTime = reader.readFrame(frame, until: Date().addingTimeInterval(30))
            #expect(inTime.codes.map(\.text) == ["5901234123457"])
            #expect(inTime.complete)
        }
    }

    /// A stall measured once does not keep the angled look off for good: skipped frames ease the
    /// estimate down until the look fits a frame period again.
    @Test func aSlowMeasurementDoesNotKeepTheAngledLookOffForGood() {
        var costs = FrameLookCosts()
        for _ in 0..<20 { costs.searched(took: .milliseconds(200)) }
        #expect(!costs.fits(costs.search, before: Date().addingTimeInterval(0.033)))
        var skips = 0
        while !costs.fits(costs.search, before: Date().addingTimeInterval(0.033)), skips < 1000 {
            costs.skipped()
            skips += 1
        }
        #expect(skips > 0 && skips < 200, "\(skips) frames skipped")
    }

    @Test func aCodeTheFastLookReadsIsNotReadAgainButAnotherTurnedOneIs() {
        let reader = BarcodeReader()
        let upright = Self.bench([(Self.ean13, 0, 320, 180)])
        let fast = reader.read(upright)
        #expect(fast.map(\.text) == ["5901234123457"])
        let reading = reader.readFrame(upright)
        #expect(reading.codes.map(\.text) == fast.map(\.text))
        #expect(reading.complete)
        // An ITF turned 45° beside it: the fast look reads the upright EAN-13 only.
        let both = Self.bench([(Self.ean13, 0, 180, 180), (Self.itf, 45, 470, 180)])
        #expect(reader.read(both).map(\.text) == ["5901234123457"])
        #expect(reader.readFrame(both).codes.map(\.text) == ["5901234123457", "12345678901231"])
    }

    @Test func aBareBenchIsReadWholeAndNothingIsFound() {
        let reader = BarcodeReader()
        let reading = reader.readFrame(Self.bench([]))
        #expect(reading == BarcodeReader.FrameReading(codes: [], complete: true))
    }

    @Test func withoutTheAngledLookAFrameIsTheFastLooksAlone() {
        let frame = Self.bench([(Self.ean13, 40, 320, 180)])
        let off = BarcodeReader(options: ReaderOptions(angledLook: false))
        #expect(off.readFrame(frame) == BarcodeReader.FrameReading(codes: [], complete: true))
        // Try-harder has its own angled look, last of its looks: readFrame adds nothing to it.
        let tryHarder = BarcodeReader(options: ReaderOptions(tryHarder: true))
        #expect(tryHarder.readFrame(frame).codes.map(\.text) == tryHarder.read(frame).map(\.text))
    }

    /// Try-harder's second cut-out, two samples per pixel across the bars, reads bars of about one
    /// pixel that the first, one sample per pixel, loses; the camera loop keeps to the first.
    @Test(arguments: [40.0, 50.0])
    func thinBarsAreReadFromASubPixelCutOut(degrees: Double) throws {
        let reader = BarcodeReader(options: ReaderOptions(tryHarder: true))
        let image = AngledLookTests.turned(AngledLookTests.ean13(moduleWidth: 1, height: 50), by: degrees)
        let region = try #require(BarRegion.find(in: image, limit: 1).first)
        let linear = try #require(reader.angledSymbologies)
        #expect(reader.angledCodes(in: region, of: image, linear: linear, densities: [1], combining: false).isEmpty)
        #expect(reader.angledCodes(in: region, of: image, linear: linear).map(\.text) == ["5901234123457"])
    }
}
