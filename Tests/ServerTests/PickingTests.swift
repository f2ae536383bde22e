import Foundation
import TestSupport
import Testing

/// Scans, taps and the pack–pick interlock, against a real `scanpick serve`.
@Suite struct PickingTests {
    @Test(arguments: ServerStoreKind.allCases) func aScanCountsOneUnitAndGTINFormsAreTheSameItem(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let a1 = fixture.tasks[0]
        let first = try await fixture.scan(a1, "036000291452")
        #expect(first.status == 200)
        #expect(first.pickTask["qtyPicked"] as? Int == 1)
        // The task's UPC-A scanned as its EAN-13 form is the same item.
        #expect(try await fixture.scan(a1, "0036000291452").pickTask["qtyPicked"] as? Int == 2)
        let wrong = try await fixture.scan(a1, "5901234123457")
        #expect(wrong.status == 422)
        #expect(wrong.errorCode == "barcode_mismatch")
        // So is its GS1 DataBar reading: AI 01 and the GTIN-14 with indicator digit 0.
        #expect(try await fixture.scan(a1, "0100036000291452").status == 200)
        let over = try await fixture.scan(a1, "036000291452")
        #expect(over.status == 422)
        #expect(over.errorCode == "over_pick")
        #expect(try await fixture.picked(a1) == 3)
        #expect(try await fixture.scan("task-nope", "036000291452").status == 404)
    }

    @Test(arguments: ServerStoreKind.allCases) func pickAddsAndSetQtySets(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let b3 = fixture.tasks[1]
        #expect(try await fixture.pick(b3, qty: 2).pickTask["qtyPicked"] as? Int == 2)
        let over = try await fixture.pick(b3, qty: 1)
        #expect(over.errorCode == "over_pick")
        #expect(try await fixture.pick(b3, qty: 0).errorCode == "invalid_quantity")
        #expect(try await fixture.setQty(b3, from: 2, to: 1).pickTask["qtyPicked"] as? Int == 1)
        #expect(try await fixture.setQty(b3, from: 1, to: 3).errorCode == "over_pick")
        let negative = try await fixture.setQty(b3, from: 1, to: -1)
        #expect(negative.status == 422)
        #expect(negative.errorCode == "invalid_quantity")
        #expect(try await fixture.picked(b3) == 1)
    }

    @Test(arguments: ServerStoreKind.allCases) func boxedUnitsAreLockedUntilTheLabelIsVoided(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let a1 = fixture.tasks[0]
        #expect(try await fixture.pick(a1, qty: 3).status == 200)
        let tooMany = try await fixture.acme.post(
            "/api/shipments",
            json: ["orderId": "o1", "units": [["pickTaskId": a1, "qty": 4]], "idempotencyKey": "s0", "at": fixture.at])
        #expect(tooMany.status == 422)
        let shipment = try await fixture.acme.post(
            "/api/shipments",
            json: ["orderId": "o1", "units": [["pickTaskId": a1, "qty": 2]], "idempotencyKey": "s1", "at": fixture.at])
        #expect(shipment.status == 201)
        #expect(shipment.json["status"] as? String == "active")
        let shipmentId = try #require(shipment.json["id"] as? String)
        #expect(try await fixture.task(a1)["qtyLocked"] as? Int == 2)

        let refused = try await fixture.setQty(a1, from: 3, to: 1)
        #expect(refused.status == 422)
        #expect(refused.errorCode == "locked_by_shipment")
        #expect((refused.json["message"] as? String)?.hasPrefix("2 units of A1 are already in a box") == true)
        #expect(try await fixture.setQty(a1, from: 3, to: 2).status == 200)  // down to the lock is fine
        let otherOrder = try await fixture.acme.post(
            "/api/shipments",
            json: ["orderId": "o2", "units": [["pickTaskId": a1, "qty": 1]], "idempotencyKey": "s2", "at": fixture.at])
        #expect(otherOrder.errorCode == "task_not_in_order")

        let voided = try await fixture.acme.post(
            "/api/shipments/\(shipmentId)/void", json: ["idempotencyKey": "v1", "at": fixture.at])
        #expect(voided.status == 200)
        #expect(voided.json["status"] as? String == "voided")
        #expect(try await fixture.task(a1)["qtyLocked"] as? Int == 0)
        #expect(try await fixture.setQty(a1, from: 2, to: 0).status == 200)
        #expect(
            try await fixture.acme.post("/api/shipments/nope/void", json: ["idempotencyKey": "v2", "at": fixture.at])
                .status == 404)
    }
}
