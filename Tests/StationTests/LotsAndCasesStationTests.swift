import Foundation
import TestSupport
import Testing

/// A line with a lot, a best-before date and a case, scanned at a real station and drained to a real
/// server: the station refuses what the server would, and a case counts its units on both.
@Suite struct LotsAndCasesStationTests {
    @Test func theStationRefusesAnotherLotAndCountsACaseAsTheServerDoes() async throws {
        let fixture = try await StationFixture(openBatch: false)
        let line: [String: Any] = [
            "id": "l1", "sku": "SKU-G1", "location": "G1", "barcode": "9501101530003", "qty": 30, "lot": "L123",
            "bestBefore": "2027-01-01", "caseGtin": "19501101530000", "caseQty": 12,
        ]
        let order: [String: Any] = ["id": "o9", "carrier": "UPS", "zone": "G", "shipBy": "2026-12-09", "lines": [line]]
        #expect(try await fixture.acme.post("/api/orders", json: ["orders": [order]]).status == 200)
        let batch = try await fixture.acme.post("/api/batches", json: ["filters": ["orderIds": ["o9"]]])
        let batchId = try #require(batch.json["id"] as? String)
        let opened = try await fixture.scanpick(["batch", "open", batchId, "--org", "acme"])
        #expect(opened.status == 0, "\(opened.standardError)")

        let item = "0109501101530003"
        let run = try await fixture.wedge(
            [
                item + "17270101" + "10L999", item + "17261201" + "10L123", "19501101530000",
                item + "17270101" + "10L123",
            ],
            expecting: 4)
        #expect(run.scans.map { $0["accepted"] as? Bool } == [false, false, true, true])
        #expect(run.scans[0]["reason"] as? String == "refused")
        #expect(run.scans[0]["detail"] as? String == "lot L123 expected, L999 scanned")
        #expect(run.scans[1]["detail"] as? String == "expires 2026-12-01, needs ≥ 2027-01-01")
        #expect(run.scans[2]["units"] as? Int == 12)
        #expect(run.standardOutput.contains("✓ SKU-G1 at G1: 12 of 30 (a case of 12)"))
        #expect(run.standardOutput.contains("✓ SKU-G1 at G1: 13 of 30"))
        // Only the two accepted scans were queued; the server, applying the same rule, counts 13.
        #expect(run.scans.filter { $0["actionId"] != nil }.count == 2)
        let drained = try await fixture.scanpick(["drain"])
        #expect(drained.status == 0, "\(drained.standardError)")
        let now = try await fixture.acme.get("/api/batches/\(batchId)")
        #expect((now.json["tasks"] as? [[String: Any]])?.first?["qtyPicked"] as? Int == 13)
    }

    @Test func aGS1DataMatrixIsReadByTheCameraOnlyWhenTheOrganisationAsksForIt() async throws {
        let fixture = try await StationFixture(openBatch: false)
        // The sample's data: (01) 09501101530003 (17) 270101 (10) AB-12 (21) SN0001.
        let line: [String: Any] = [
            "id": "l1", "sku": "SKU-M1", "location": "M1", "barcode": "09501101530003", "qty": 2, "lot": "AB-12",
            "bestBefore": "2027-01-01",
        ]
        let order: [String: Any] = ["id": "o7", "carrier": "UPS", "zone": "M", "shipBy": "2026-12-09", "lines": [line]]
        #expect(try await fixture.acme.post("/api/orders", json: ["orders": [order]]).status == 200)
        let batch = try await fixture.acme.post("/api/batches", json: ["filters": ["orderIds": ["o7"]]])
        let batchId = try #require(batch.json["id"] as? String)
        #expect(try await fixture.scanpick(["batch", "open", batchId, "--org", "acme"]).status == 0)
        let frames = try fixture.frames("dm", [("matrix/datamatrix-gs1.png", 5)])

        let unasked = try await fixture.scanpick(["station", "--frames", frames])
        #expect(StationFixture.scanLines(unasked).isEmpty)

        try fixture.rewriteConfig { settings in
            var organisations = settings["organisations"] as? [String: Any] ?? [:]
            var acme = organisations["acme"] as? [String: Any] ?? [:]
            acme["scanning"] = ["enabled": true, "symbologies": ["ean13", "upca", "datamatrix"]]
            organisations["acme"] = acme
            settings["organisations"] = organisations
        }
        let asked = try await fixture.scanpick(["station", "--frames", frames])
        let scans = StationFixture.scanLines(asked)
        #expect(scans.count == 1, "\(asked.standardError)")
        #expect(scans.first?["symbology"] as? String == "DataMatrix")
        #expect(scans.first?["accepted"] as? Bool == true)
        #expect(asked.standardOutput.contains("✓ SKU-M1 at M1: 1 of 2"))
    }
}
