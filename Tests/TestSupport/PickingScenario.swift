import Foundation

/// Orders and an open batch on a test server, as an ERP and a supervisor would leave them: tasks at
/// A1 (UPC-A 036000291452, 3 units), B3 (EAN-13 5901234123457, 2 units) and C2 (EAN-8 96385074,
/// 1 unit), in that pick order, plus, with `bulkQty`, a task at Z9 needing that many units.
public struct PickingScenario: Sendable {
    public let batchId: String
    /// Task ids in pick order: A1, B3, C2 (then Z9 with `bulkQty`).
    public let tasks: [String]

    public static func create(on client: APIClient, bulkQty: Int? = nil) async throws -> PickingScenario {
        var orders: [[String: Any]] = [
            [
                "id": "o1", "carrier": "DHL", "zone": "A", "shipBy": "2026-12-01",
                "lines": [
                    ["id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 3],
                    ["id": "l2", "sku": "SKU-C2", "location": "C2", "barcode": "96385074", "qty": 1],
                ],
            ],
            [
                "id": "o2", "carrier": "DHL", "zone": "A", "shipBy": "2026-12-02",
                "lines": [["id": "l1", "sku": "SKU-B3", "location": "B3", "barcode": "5901234123457", "qty": 2]],
            ],
        ]
        if let bulkQty {
            orders.append([
                "id": "o3", "carrier": "DHL", "zone": "A", "shipBy": "2026-12-03",
                "lines": [["id": "l1", "sku": "SKU-Z9", "location": "Z9", "barcode": "4006381333931", "qty": bulkQty]],
            ])
        }
        let upserted = try await client.post("/api/orders", json: ["orders": orders])
        guard upserted.status == 200 else { throw ServerProcessError(message: "orders: \(upserted.text)") }
        let batch = try await client.post("/api/batches", json: ["filters": ["carrier": "DHL"]])
        guard batch.status == 201, let id = batch.json["id"] as? String else {
            throw ServerProcessError(message: "batch: \(batch.text)")
        }
        let tasks = (batch.json["tasks"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        return PickingScenario(batchId: id, tasks: tasks)
    }

    /// The server's qtyPicked of every task, by id.
    public func picked(on client: APIClient) async throws -> [String: Int] {
        let batch = try await client.get("/api/batches/\(batchId)")
        var picked: [String: Int] = [:]
        for task in batch.json["tasks"] as? [[String: Any]] ?? [] {
            if let id = task["id"] as? String { picked[id] = task["qtyPicked"] as? Int }
        }
        return picked
    }
}
