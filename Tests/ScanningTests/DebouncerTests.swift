import Testing

@testable import Scanning

@Suite struct DebouncerTests {
    let upc = Debouncer.Code(symbology: .upca, payload: Array("036000291452".utf8))
    let qr = Debouncer.Code(symbology: .qrcode, payload: Array("LOC:A1".utf8))

    /// Runs `frames` (each the codes in view) at 30 frames/s; returns how often each code counted.
    func run(_ frames: [[Debouncer.Code]], options: Debouncer.Options = .init()) -> [Debouncer.Code: Int] {
        var debouncer = Debouncer(options: options)
        var counts: [Debouncer.Code: Int] = [:]
        for (index, codes) in frames.enumerated() {
            for code in debouncer.observe(codes, at: Double(index) / 30) { counts[code, default: 0] += 1 }
        }
        return counts
    }

    func frames(_ pattern: [(codes: [Debouncer.Code], count: Int)]) -> [[Debouncer.Code]] {
        pattern.flatMap { Array(repeating: $0.codes, count: $0.count) }
    }

    @Test func anItemHeldInViewForTenSecondsIsOneScan() {
        #expect(run(frames([([upc], 300)])) == [upc: 1])
    }

    @Test func threeDeliberateScansAreThree() {
        let away = 60  // 2 s out of view, past the 1.5 s hold-off
        #expect(run(frames([([upc], 10), ([], away), ([upc], 10), ([], away), ([upc], 10)])) == [upc: 3])
    }

    @Test func aFlickerDoesNotCountTwice() {
        #expect(run(frames([([upc], 10), ([], 3), ([upc], 10), ([], 1), ([upc], 5)])) == [upc: 1])
    }

    @Test func anEANCodeNeedsTwoConsecutiveFramesToCount() {
        #expect(run(frames([([upc], 1), ([], 5), ([upc], 1), ([], 5)])) == [:])
        #expect(run(frames([([upc], 2)])) == [upc: 1])
        #expect(run(frames([([qr], 1)])) == [qr: 1])  // one frame confirms a QR code
        #expect(run(frames([([upc], 2)]), options: .init(eanUpcFrames: 3)) == [:])
    }

    @Test func twoDifferentCodesInOneFrameEachCount() {
        #expect(run(frames([([upc, qr], 5), ([qr], 5)])) == [upc: 1, qr: 1])
    }

    @Test func theHoldOffIsMeasuredOnFrameTimeNotTheWallClock() {
        var debouncer = Debouncer()
        #expect(debouncer.observe([upc], at: 0).isEmpty)
        #expect(debouncer.observe([upc], at: 0.033) == [upc])
        #expect(debouncer.observe([], at: 1.0).isEmpty)
        #expect(debouncer.observe([upc], at: 1.4).isEmpty)  // back within 1.5 s of last seen: same presence
        #expect(debouncer.observe([upc], at: 1.45).isEmpty)
        #expect(debouncer.observe([], at: 3.0).isEmpty)
        #expect(debouncer.observe([upc], at: 3.1).isEmpty)
        #expect(debouncer.observe([upc], at: 3.133) == [upc])
    }

    /// A frame part of which was not read (the angled look had no time) breaks no run; a frame read
    /// whole that does not show the code does.
    @Test func aFrameNotReadWholeBreaksNoRun() {
        var debouncer = Debouncer()
        #expect(debouncer.observe([upc], at: 0).isEmpty)
        #expect(debouncer.observe([], at: 0.033, complete: false).isEmpty)
        #expect(debouncer.observe([upc], at: 0.067) == [upc])
        var whole = Debouncer()
        #expect(whole.observe([upc], at: 0).isEmpty)
        #expect(whole.observe([], at: 0.033).isEmpty)
        #expect(whole.observe([upc], at: 0.067).isEmpty)
        #expect(whole.observe([upc], at: 0.1) == [upc])
    }
}
