import Testing

@testable import Imaging

/// Resampling along chosen axes: the angled look's cut-outs and the turned pictures of the tests.
@Suite struct SamplingTests {
    /// A 5 × 3 picture whose every pixel differs.
    let picture = GreyImage(width: 5, height: 3, pixels: (0..<15).map { UInt8($0 * 10) })

    @Test func samplingAlongTheAxesCopiesThePicture() {
        let copy = picture.sampled(
            origin: .init(x: 0, y: 0), across: .init(x: 1, y: 0), down: .init(x: 0, y: 1), width: 5, height: 3)
        #expect(copy == picture)
    }

    @Test func halfwayBetweenPixelsIsTheirMeanAndOutsideIsAsAsked() {
        let between = picture.sampled(
            origin: .init(x: 0.5, y: 0), across: .init(x: 1, y: 0), down: .init(x: 0, y: 1), width: 2, height: 1)
        #expect(between.pixels == [5, 15])
        let beyond = picture.sampled(
            origin: .init(x: 4, y: 2), across: .init(x: 1, y: 0), down: .init(x: 0, y: 1), width: 2, height: 2,
            outside: 7)
        #expect(beyond.pixels == [140, 7, 7, 7])
        let clamped = picture.sampled(
            origin: .init(x: 4, y: 2), across: .init(x: 1, y: 0), down: .init(x: 0, y: 1), width: 2, height: 1)
        #expect(clamped.pixels == [140, 140])
    }

    @Test func averagingCombinesSamplesAlongDown() {
        // Rows 0, 1, 2 of column 0 are 0, 50, 100: three samples centred on row 1 average to 50.
        let averaged = picture.sampled(
            origin: .init(x: 0, y: 1), across: .init(x: 1, y: 0), down: .init(x: 0, y: 1), width: 1, height: 1,
            averaging: 3)
        #expect(averaged.pixels == [50])
    }

    @Test func turningByAQuarterTurnsClockwise() {
        let turned = picture.rotated(byDegrees: 90)
        #expect(turned.width == 3 && turned.height == 5)
        // Clockwise on screen: the left column, read bottom to top, becomes the top row.
        #expect(Array(turned.pixels[0..<3]) == [100, 50, 0])
        #expect(picture.rotated(byDegrees: 0) == picture)
        let tilted = picture.rotated(byDegrees: 30, background: 255)
        #expect(tilted.width == 6 && tilted.height == 5)
        #expect(tilted[0, 0] == 255)
    }
}
