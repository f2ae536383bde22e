import Foundation
import Testing

@testable import Wire

/// What a task's counts mean: done when picked + short reach required (whatever counts a server
/// sends, no sum overflows), and a set count that wins over shorts that no longer fit.
@Suite struct PickTaskTests {
    func task(required: Int, picked: Int, short: Int) -> PickTask {
        PickTask(
            id: "t", batchId: "b", orderId: "o", lineId: "l", sku: "SKU-1", location: "A1", barcode: "1",
            qtyRequired: required, qtyPicked: picked, qtyLocked: 0, qtyShort: short)
    }

    @Test func aTaskIsDoneWhenPickedAndShortReachRequired() {
        #expect(!task(required: 3, picked: 1, short: 1).isComplete)
        #expect(task(required: 3, picked: 1, short: 1).qtyOpen == 1)
        #expect(task(required: 3, picked: 1, short: 2).isComplete)
        #expect(task(required: 3, picked: 3, short: 0).isComplete)
        #expect(task(required: 3, picked: 0, short: 3).isComplete)
        #expect(task(required: 0, picked: 0, short: 0).isComplete)
        // An order line lowered under what was picked: done, nothing open.
        #expect(task(required: 1, picked: 2, short: 1).qtyOpen == 0)
        // Counts past any sum (a server's answer is not trusted to be sane): no trap, a clear answer.
        #expect(task(required: Int.max, picked: Int.min, short: 0).qtyOpen == Int.max)
        #expect(task(required: Int.min, picked: Int.max, short: 0).isComplete)
        #expect(task(required: Int.max, picked: 0, short: Int.min).qtyOpen == Int.max)
        #expect(task(required: Int.min, picked: -1, short: Int.max).isComplete)
    }

    @Test func aSetCountWinsOverShortsThatNoLongerFit() {
        let shorted = task(required: 5, picked: 1, short: 3)
        #expect(shorted.settingPicked(to: 2).qtyShort == 3)
        #expect(shorted.settingPicked(to: 3).qtyShort == 2)
        #expect(shorted.settingPicked(to: 5).qtyShort == 0)
        #expect(shorted.settingPicked(to: 0).qtyShort == 3)
        #expect(shorted.settingPicked(to: 4).qtyPicked == 4)
    }

    @Test func aNameIsShownOrElseTheSKU() {
        var named = task(required: 1, picked: 0, short: 0)
        #expect(named.displayName == "SKU-1")
        named.name = "COFFEE ARABICA 1KG"
        #expect(named.displayName == "COFFEE ARABICA 1KG")
    }

    @Test func aTaskFromAServerBeforeShortsReadsAsNoneShort() throws {
        let json =
            #"{"id":"t","batchId":"b","orderId":"o","lineId":"l","sku":"s","location":"A","barcode":"1","qtyRequired":2,"qtyPicked":1,"qtyLocked":0}"#
        let decoded = try JSONDecoder().decode(PickTask.self, from: Data(json.utf8))
        #expect(decoded.qtyShort == 0)
        #expect(decoded.name == nil)
        #expect(decoded.tote == nil)
    }

    @Test func aShortsReasonIsOneOfThree() throws {
        for reason in ShortReason.allCases { try FieldRules.shortReason(reason.rawValue) }
        #expect(ShortReason.allCases.map(\.rawValue) == ["not_found", "damaged", "other"])
        #expect(throws: FieldError.self) { try FieldRules.shortReason("Not_Found") }
        #expect(throws: FieldError.self) { try FieldRules.shortReason("") }
    }
}
