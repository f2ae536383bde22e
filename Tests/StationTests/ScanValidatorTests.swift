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
        // 01234565 is both a valid EAN-8 and the UPC-E of UPC-A 012345000065: which one the reader saw
        // decides.
        let upca = PickTask(
            id: "t2", batchId: "b1", orderId: "o1", lineId: "l2", sku: "SKU-U", location: "U1", barcode: "012345000065",
            qtyRequired: 1, qtyPicked: 0, qtyLocked: 0)
        #expect(!ScanValidator.check("01234565", symbology: .ean8, against: upca, batchId: "b1").isAccepted)
        #expect(ScanValidator.check("01234565", symbology: .upce, against: upca, batchId: "b1").isAccepted)
        // A wedge or handheld reports no symbology: a code valid as both is not taken for the UPC-E.
        #expect(!ScanValidator.check("01234565", against: upca, batchId: "b1").isAccepted)
        // 04252614 is no valid EAN-8: from a wedge too, it can only be the UPC-E of 042100005264.
        var upcaOnly = upca
        upcaOnly.barcode = "042100005264"
        #expect(ScanValidator.check("04252614", against: upcaOnly, batchId: "b1").isAccepted)
        var ean8 = upca
        ean8.barcode = "01234565"
        #expect(ScanValidator.check("01234565", symbology: .ean8, against: ean8, batchId: "b1").isAccepted)
        #expect(ScanValidator.check("01234565", against: ean8, batchId: "b1").isAccepted)
        // A task stored as those 8 digits may be the EAN-8 item: the UPC-A is not taken for it.
        #expect(!ScanValidator.check("012345000065", symbology: .upca, against: ean8, batchId: "b1").isAccepted)
    }

    @Test func rejectsWithAReasonAPickerCanAct() {
        let mismatch = ScanValidator.check("5901234123457", against: task, batchId: "b1")
        #expect(mismatch == .mismatch(expected: "036000291452", seen: "5901234123457", task: task))
        #expect(mismatch.message == "✗ wrong item: saw 5901234123457, A1 (task t1) expects 036000291452")
        #expect(ScanValidator.check("036000291452", against: nil, batchId: nil) == .noOpenBatch)
        #expect(ScanValidator.check("036000291452", against: nil, batchId: "b1") == .batchComplete(batchId: "b1"))
        #expect(!mismatch.isAccepted)
    }

    /// Scan to select: the verdict among all of the open batch's tasks.
    @Test func aCodeOfAnotherTaskSelectsItAndACompleteTasksCodeSaysSo() {
        var done = task
        done.id = "t0"
        done.location = "A0"
        done.barcode = "96385074"
        done.qtyPicked = 3
        var other = task
        other.id = "t2"
        other.location = "B3"
        other.barcode = "5901234123457"
        let tasks = [done, task, other]
        // The active task's code counts for it; another unfinished task's code counts for that one.
        #expect(ScanValidator.check("036000291452", in: tasks, active: task, batchId: "b1") == .accepted(task))
        #expect(ScanValidator.check("5901234123457", in: tasks, active: task, batchId: "b1") == .accepted(other))
        // A complete task's code: already complete, never counted.
        let complete = ScanValidator.check("96385074", symbology: .ean8, in: tasks, active: task, batchId: "b1")
        #expect(complete == .alreadyComplete(done))
        #expect(complete.message == "✗ already complete: A0 SKU-A1 3/3")
        #expect(!complete.isAccepted)
        // A code no task has is a wrong item for the active task, as before.
        #expect(
            ScanValidator.check("SKU-7731", in: tasks, active: task, batchId: "b1")
                == .mismatch(expected: "036000291452", seen: "SKU-7731", task: task))
        // With no active task (the batch is done or closed) nothing is counted.
        #expect(
            ScanValidator.check("5901234123457", in: tasks, active: nil, batchId: "b1") == .batchComplete(batchId: "b1")
        )
        #expect(
            ScanValidator.check("96385074", symbology: .ean8, in: tasks, active: nil, batchId: "b1")
                == .alreadyComplete(done))
        #expect(ScanValidator.check("036000291452", in: [], active: nil, batchId: nil) == .noOpenBatch)
    }
}
