import Testing
import Wire

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
}

@Suite struct ScanValidatorTests {
    let task = PickTask(
        id: "t1", batchId: "b1", orderId: "o1", lineId: "l1", sku: "SKU-A1", location: "A1", barcode: "036000291452",
        qtyRequired: 3, qtyPicked: 1, qtyLocked: 0)

    @Test func acceptsTheTasksBarcodeInAnyGTINForm() {
        #expect(ScanValidator.check("036000291452", against: task, batchId: "b1") == .accepted(task))
        #expect(ScanValidator.check("0036000291452", against: task, batchId: "b1") == .accepted(task))
        #expect(ScanValidator.check("0036000291452", against: task, batchId: "b1").message == "✓ A1: SKU-A1 2/3")
        // A DataBar Expanded on a weighed pack: AI 01 with the item's GTIN, then its weight.
        #expect(ScanValidator.check("01000360002914523103001750", against: task, batchId: "b1") == .accepted(task))
        // A case of the item (indicator digit 1) is not the item.
        #expect(!ScanValidator.check("0110036000291459", against: task, batchId: "b1").isAccepted)
    }

    @Test func anEAN8IsComparedAsTheReaderReportedIt() {
        // 04252614 is both an EAN-8 and the UPC-E of UPC-A 042100005264: which one the reader saw decides.
        let upca = PickTask(
            id: "t2", batchId: "b1", orderId: "o1", lineId: "l2", sku: "SKU-U", location: "U1", barcode: "042100005264",
            qtyRequired: 1, qtyPicked: 0, qtyLocked: 0)
        #expect(!ScanValidator.check("04252614", symbology: .ean8, against: upca, batchId: "b1").isAccepted)
        #expect(ScanValidator.check("04252614", symbology: .upce, against: upca, batchId: "b1").isAccepted)
        #expect(ScanValidator.check("04252614", against: upca, batchId: "b1").isAccepted)  // a wedge: no symbology
        var ean8 = upca
        ean8.barcode = "04252614"
        #expect(ScanValidator.check("04252614", symbology: .ean8, against: ean8, batchId: "b1").isAccepted)
    }

    @Test func rejectsWithAReasonAPickerCanAct() {
        let mismatch = ScanValidator.check("5901234123457", against: task, batchId: "b1")
        #expect(mismatch == .mismatch(expected: "036000291452", seen: "5901234123457", task: task))
        #expect(mismatch.message == "✗ wrong item: saw 5901234123457, A1 (task t1) expects 036000291452")
        #expect(ScanValidator.check("036000291452", against: nil, batchId: nil) == .noOpenBatch)
        #expect(ScanValidator.check("036000291452", against: nil, batchId: "b1") == .batchComplete(batchId: "b1"))
        #expect(!mismatch.isAccepted)
    }
}
