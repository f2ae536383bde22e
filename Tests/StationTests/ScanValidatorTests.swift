import Scanning
import Testing
import Wire

@testable import Station

@Suite struct ScanValidatorTests {
    let task = PickTask(
        id: "t1", batchId: "b1", orderId: "o1", lineId: "l1", sku: "SKU-A1", location: "A1", barcode: "036000291452",
        qtyRequired: 3, qtyPicked: 1, qtyLocked: 0)

    @Test func acceptsTheTasksBarcodeInAnyGTINForm() {
        #expect(ScanValidator.check("036000291452", against: task, batchId: "b1") == .accepted(task, units: 1))
        #expect(ScanValidator.check("0036000291452", against: task, batchId: "b1") == .accepted(task, units: 1))
        #expect(ScanValidator.check("0036000291452", against: task, batchId: "b1").message == "✓ SKU-A1 at A1: 2 of 3")
        // A DataBar Expanded on a weighed pack: AI 01 with the item's GTIN, then its weight.
        #expect(
            ScanValidator.check("01000360002914523103001750", against: task, batchId: "b1") == .accepted(task, units: 1)
        )
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
        #expect(mismatch.message == "✗ Wrong item: that is not SKU-A1 for A1")
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
        #expect(
            ScanValidator.check("036000291452", in: tasks, active: task, batchId: "b1") == .accepted(task, units: 1))
        #expect(
            ScanValidator.check("5901234123457", in: tasks, active: task, batchId: "b1") == .accepted(other, units: 1))
        // A complete task's code: already complete, never counted.
        let complete = ScanValidator.check("96385074", symbology: .ean8, in: tasks, active: task, batchId: "b1")
        #expect(complete == .alreadyComplete(done))
        #expect(complete.message == "✗ Already complete: SKU-A1 at A0, 3 of 3 picked")
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

    /// With scan to select off (`scanning.scanToSelect` false), another unfinished task's code is
    /// refused, naming where it belongs and where the picker is; the rest is as with it on.
    @Test func withScanToSelectOffAnotherTasksCodeIsRefusedNamingBothLocations() {
        var other = task
        other.id = "t2"
        other.location = "A-03-03-A"
        other.sku = "COFFEE ARABICA 1KG"
        other.barcode = "5901234123457"
        var current = task
        current.location = "A-01-02-B"
        let tasks = [current, other]
        let refused = ScanValidator.check(
            "5901234123457", in: tasks, active: current, batchId: "b1", scanToSelect: false)
        #expect(refused == .otherTask(other, current: current))
        #expect(refused.reason == "other_task")
        #expect(
            refused.message
                == "✗ COFFEE ARABICA 1KG: that is for A-03-03-A; the current pick is A-01-02-B")
        #expect(
            ScanValidator.check("036000291452", in: tasks, active: current, batchId: "b1", scanToSelect: false)
                == .accepted(current, units: 1))
        #expect(
            ScanValidator.check("SKU-7731", in: tasks, active: current, batchId: "b1", scanToSelect: false)
                == .mismatch(expected: "036000291452", seen: "SKU-7731", task: current))
    }

    /// What the picker reads names the product and its location, and never an id, a code with
    /// underscores or a command line.
    @Test func everyMessageIsInAPickersWords() {
        var other = task
        other.id = "task-other"
        other.location = "B3"
        let verdicts: [ScanValidator.Verdict] = [
            .accepted(task, units: 1), .accepted(task, units: 12), .mismatch(expected: "1", seen: "2", task: task),
            .refused(reason: "lot L123 expected, L999 scanned", task: task), .overPick(units: 12, task: task),
            .noOpenBatch, .batchComplete(batchId: "batch-7f3fc7ad2cb143f5"), .scanningOff(org: "acme"),
            .unacceptable(problem: "barcode must be 1–128 characters"), .alreadyComplete(task), .signInRequired,
            .batchLabel(batchId: "batch-7f3fc7ad2cb143f5"), .workerBadge(workerId: "w-0042", name: "Ana"),
            .otherTask(other, current: task),
        ]
        for verdict in verdicts {
            let message = verdict.message
            #expect(!message.contains("t1") && !message.contains("task-") && !message.contains("batch-"), "\(message)")
            #expect(!message.contains("scanpick") && !message.contains("_") && !message.contains("organisations."))
        }
        for verdict in verdicts {
            switch verdict {
            case .accepted(let task, _), .mismatch(_, _, let task), .refused(_, let task), .overPick(_, let task),
                .alreadyComplete(let task):
                #expect(verdict.message.contains(task.displayName) && verdict.message.contains(task.location))
            default: break
            }
        }
    }

    @Test func gs1DataIsCheckedAgainstTheLinesLotAndDateAndACaseCountsItsUnits() {
        // GS1's example item, with a lot, a best-before date and a case of 12.
        let line = PickTask(
            id: "t9", batchId: "b1", orderId: "o9", lineId: "l1", sku: "SKU-G1", location: "G1",
            barcode: "9501101530003",
            qtyRequired: 30, qtyPicked: 20, qtyLocked: 0, lot: "L123", bestBefore: "2027-01-01",
            caseGtin: "19501101530000", caseQty: 12)
        let item = "0109501101530003"
        #expect(
            ScanValidator.check(item + "17270101" + "10L123", against: line, batchId: "b1") == .accepted(line, units: 1)
        )
        let otherLot = ScanValidator.check(item + "17270101" + "10L999", against: line, batchId: "b1")
        #expect(otherLot == .refused(reason: "lot L123 expected, L999 scanned", task: line))
        #expect(otherLot.message == "✗ SKU-G1 at G1: lot L123 expected, L999 scanned")
        let tooSoon = ScanValidator.check(item + "17261201" + "10L123", against: line, batchId: "b1")
        #expect(tooSoon.message == "✗ SKU-G1 at G1: expires 2026-12-01, needs ≥ 2027-01-01")
        #expect(!ScanValidator.check("0109501101530004", against: line, batchId: "b1").isAccepted)
        // 20 picked of 30: a case of 12 would go over, 8 counted by (02) + (37) fits.
        #expect(ScanValidator.check("19501101530000", against: line, batchId: "b1") == .overPick(units: 12, task: line))
        let counted = ScanValidator.check("0209501101530003" + "378\u{1D}10L123", against: line, batchId: "b1")
        #expect(counted == .accepted(line, units: 8))
        #expect(counted.message == "✓ SKU-G1 at G1: 28 of 30 (a case of 8)")
        var fresh = line
        fresh.qtyPicked = 0
        #expect(ScanValidator.check("19501101530000", against: fresh, batchId: "b1") == .accepted(fresh, units: 12))
    }

    @Test func aGS1SymbolThatDoesNotLookLikeGS1TravelsWithItsSymbologyIdentifier() throws {
        // A GS1-128 opening with (17): without its identifier it would pass for plain digits.
        let dateFirst = Barcode(
            symbology: .code128, payload: Array(("17270101" + "0109501101530003" + "10L123").utf8), isGS1: true)
        let sent = String(decoding: ScanLoop.transmitted(dateFirst), as: UTF8.self)
        #expect(sent == "]C1" + "17270101" + "0109501101530003" + "10L123")
        let line = PickTask(
            id: "t9", batchId: "b1", orderId: "o9", lineId: "l1", sku: "SKU-G1", location: "G1",
            barcode: "9501101530003",
            qtyRequired: 30, qtyPicked: 0, qtyLocked: 0, lot: "L123")
        #expect(ScanValidator.check(sent, against: line, batchId: "b1") == .accepted(line, units: 1))
        // One that already reads as GS1, and any plain code, travel as they are.
        let gtinFirst = Barcode(symbology: .dataMatrix, payload: Array("0109501101530003".utf8), isGS1: true)
        #expect(ScanLoop.transmitted(gtinFirst) == gtinFirst.payload)
        let plain = Barcode(symbology: .code128, payload: Array("17270101".utf8))
        #expect(ScanLoop.transmitted(plain) == plain.payload)
    }
}
