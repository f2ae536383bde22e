import Testing
import Wire

@testable import Station

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
