import Foundation
import TestSupport

/// A running server with one organisation's orders loaded and a batch opened, for picking tests.
struct PickingFixture {
    let server: ServerProcess
    let acme: APIClient
    let globex: APIClient
    /// Task ids of the batch, in pick order: A1 (UPC-A, 3 units), B3 (EAN-13, 2 units), C2 (1 unit).
    let tasks: [String]
    let batchId: String

    init() async throws {
        server = try ServerProcess()
        acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        globex = APIClient(server.baseURL, token: ServerProcess.tokens["globex"])
        let orders: [String: Any] = [
            "orders": [
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
        ]
        let upserted = try await acme.post("/api/orders", json: orders)
        precondition(upserted.status == 200, upserted.text)
        let batch = try await acme.post("/api/batches", json: ["filters": ["carrier": "DHL"]])
        precondition(batch.status == 201, batch.text)
        batchId = batch.json["id"] as? String ?? ""
        tasks = (batch.json["tasks"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func scan(_ task: String, _ barcode: String, key: String = UUID().uuidString, as client: APIClient? = nil)
        async throws
        -> APIClient.Reply
    {
        try await (client ?? acme).post(
            "/api/picking/submit-scan",
            json: [
                "pickTaskId": task, "barcode": barcode, "scannedAt": "2026-11-30T10:00:00Z", "idempotencyKey": key,
                "workerId": "worker-003",
            ])
    }

    func pick(_ task: String, qty: Int, key: String = UUID().uuidString) async throws -> APIClient.Reply {
        try await acme.post(
            "/api/picking/pick",
            json: [
                "pickTaskId": task, "qty": qty, "idempotencyKey": key, "workerId": "w", "at": "2026-11-30T10:00:00Z",
            ])
    }

    func setQty(_ task: String, from: Int, to: Int, key: String = UUID().uuidString) async throws -> APIClient.Reply {
        try await acme.post(
            "/api/picking/set-qty",
            json: [
                "pickTaskId": task, "from": from, "to": to, "idempotencyKey": key, "workerId": "w",
                "at": "2026-11-30T10:00:00Z",
            ])
    }

    /// The task as the server now sees it.
    func task(_ id: String) async throws -> [String: Any] {
        let batch = try await acme.get("/api/batches/\(batchId)")
        return (batch.json["tasks"] as? [[String: Any]] ?? []).first { $0["id"] as? String == id } ?? [:]
    }

    func picked(_ id: String) async throws -> Int { try await task(id)["qtyPicked"] as? Int ?? -1 }
}

extension APIClient.Reply {
    var pickTask: [String: Any] { json["pickTask"] as? [String: Any] ?? [:] }
}
