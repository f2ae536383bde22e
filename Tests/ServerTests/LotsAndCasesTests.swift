import Foundation
import TestSupport
import Testing

/// Order lines with a lot, a best-before date and a case GTIN-14: GS1 data on scans is checked
/// against them and a case counts its units, on both stores, against a real `scanpick serve`.
@Suite struct LotsAndCasesTests {
    static let gs = "\u{1D}"
    /// GS1's example item; its case (indicator 1) holds 12.
    static var line: [String: Any] {
        [
            "id": "l1", "sku": "SKU-G1", "location": "G1", "barcode": "9501101530003", "qty": 30, "lot": "L123",
            "bestBefore": "2027-01-01", "caseGtin": "19501101530000", "caseQty": 12,
        ]
    }

    /// The fixture's server with order o9 (the line above) in a batch of its own; its task's id and
    /// a reading of its picked units.
    func gs1Task(_ fixture: PickingFixture) async throws -> (id: String, picked: () async throws -> Int) {
        let order: [String: Any] = [
            "id": "o9", "carrier": "UPS", "zone": "G", "shipBy": "2026-12-09", "lines": [Self.line],
        ]
        let upserted = try await fixture.acme.post("/api/orders", json: ["orders": [order]])
        #expect(upserted.status == 200, "\(upserted.text)")
        let batch = try await fixture.acme.post("/api/batches", json: ["filters": ["orderIds": ["o9"]]])
        #expect(batch.status == 201, "\(batch.text)")
        let task = try #require((batch.json["tasks"] as? [[String: Any]])?.first)
        #expect(task["lot"] as? String == "L123")
        #expect(task["bestBefore"] as? String == "2027-01-01")
        #expect(task["caseGtin"] as? String == "19501101530000")
        #expect(task["caseQty"] as? Int == 12)
        let batchId = try #require(batch.json["id"] as? String)
        let picked = {
            let now = try await fixture.acme.get("/api/batches/\(batchId)")
            return (now.json["tasks"] as? [[String: Any]])?.first?["qtyPicked"] as? Int ?? -1
        }
        return (try #require(task["id"] as? String), picked)
    }

    @Test(arguments: ServerStoreKind.allCases) func lotExpiryAndCasesAreTheServersRulesToo(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let (task, picked) = try await gs1Task(fixture)
        let item = "0109501101530003"
        let otherLot = try await fixture.scan(task, item + "17270101" + "10L999")
        #expect(otherLot.status == 422)
        #expect(otherLot.errorCode == "lot_mismatch")
        #expect(otherLot.text.contains("lot L123 expected, L999 scanned"))
        let tooSoon = try await fixture.scan(task, item + "17261201" + "10L123")
        #expect(tooSoon.errorCode == "expired")
        #expect(tooSoon.text.contains("expires 2026-12-01, needs ≥ 2027-01-01"))
        #expect(try await fixture.scan(task, "0109501101530004" + "10L123").errorCode == "malformed_gs1")
        #expect(try await picked() == 0)

        // The case GTIN-14 counts the case; GS1 data of the case too; (02) + (37) counts its units.
        #expect(try await fixture.scan(task, "19501101530000").pickTask["qtyPicked"] as? Int == 12)
        #expect(
            try await fixture.scan(task, "0119501101530000" + "17270201" + "10L123").pickTask["qtyPicked"] as? Int == 24
        )
        let counted = try await fixture.scan(task, "0209501101530003" + "375" + Self.gs + "10L123")
        #expect(counted.pickTask["qtyPicked"] as? Int == 29)
        // A case would go over the 30 required: refused whole, nothing counted.
        let over = try await fixture.scan(task, "19501101530000")
        #expect(over.errorCode == "over_pick")
        #expect(try await picked() == 29)
        // The item itself, plain or in GS1 data of the right lot and date, is one unit.
        #expect(try await fixture.scan(task, item + "17270101" + "10L123").pickTask["qtyPicked"] as? Int == 30)
    }

    @Test(arguments: ServerStoreKind.allCases) func badLotDateOrCaseFieldsAreRefusedAtTheDoor(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        for (field, value) in [
            ("lot", "L 1" as Any), ("lot", String(repeating: "L", count: 21)), ("bestBefore", "2027-02-30"),
            ("bestBefore", "01/01/2027"), ("caseGtin", "19501101530001"), ("caseGtin", "9501101530003"),
            ("caseGtin", "09501101530003"),  // the item's own GTIN-14: it would count one, not a case
        ] {
            var line = Self.line
            line[field] = value
            let order: [String: Any] = [
                "id": "o8", "carrier": "UPS", "zone": "G", "shipBy": "2026-12-09", "lines": [line],
            ]
            let reply = try await fixture.acme.post("/api/orders", json: ["orders": [order]])
            #expect(reply.status == 400, "\(field)=\(value): \(reply.text)")
            #expect(reply.text.contains("orders[0].lines[0].\(field)"), "\(reply.text)")
        }
        var caseless = Self.line
        caseless["caseQty"] = nil
        let order: [String: Any] = [
            "id": "o8", "carrier": "UPS", "zone": "G", "shipBy": "2026-12-09", "lines": [caseless],
        ]
        let reply = try await fixture.acme.post("/api/orders", json: ["orders": [order]])
        #expect(reply.status == 400)
        #expect(reply.text.contains("caseQty"))
        var zero = Self.line
        zero["caseQty"] = 0
        let zeroOrder: [String: Any] = [
            "id": "o8", "carrier": "UPS", "zone": "G", "shipBy": "2026-12-09", "lines": [zero],
        ]
        #expect(
            try await fixture.acme.post("/api/orders", json: ["orders": [zeroOrder]]).errorCode == "invalid_quantity")
    }
}
