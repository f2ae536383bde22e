import Foundation
import TestSupport
import Testing

/// Orders, batches, auth and organisation boundaries, against a real `scanpick serve`.
@Suite struct OrdersAndBatchesTests {
    @Test(arguments: ServerStoreKind.allCases) func healthNeedsNoTokenButTheAPIDoes(store: ServerStoreKind) async throws
    {
        let server = try await ServerProcess(store: store)
        #expect(try await APIClient(server.baseURL, token: nil).get("/health").status == 200)
        let ready = try await APIClient(server.baseURL, token: nil).get("/health/ready")
        #expect(ready.status == 200)
        #expect(ready.json["status"] as? String == "ready")
        let anonymous = try await APIClient(server.baseURL, token: nil).get("/api/batches/x")
        #expect(anonymous.status == 401)
        #expect(anonymous.errorCode == "unauthorized")
        #expect(try await APIClient(server.baseURL, token: "wrong").get("/api/batches/x").status == 401)
        #expect(try await APIClient(server.baseURL, token: nil).get("/api/no-such-route").status == 401)
    }

    @Test(arguments: ServerStoreKind.allCases) func batchTasksAreTheMatchingLinesInLocationOrder(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let batch = try await fixture.acme.get("/api/batches/\(fixture.batchId)")
        #expect(batch.status == 200)
        let tasks = try #require(batch.json["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["location"] as? String } == ["A1", "B3", "C2"])
        #expect(
            Set(tasks[0].keys) == [
                "id", "batchId", "orderId", "lineId", "sku", "location", "barcode", "qtyRequired", "qtyPicked",
                "qtyLocked", "qtyShort", "tote",
            ])
        #expect(tasks[0]["qtyRequired"] as? Int == 3)
        #expect(tasks[0]["qtyPicked"] as? Int == 0)
        #expect(tasks[0]["batchId"] as? String == fixture.batchId)

        // Every line is now in an open batch: a second batch finds nothing.
        let again = try await fixture.acme.post("/api/batches", json: ["filters": [:] as [String: Any]])
        #expect(again.status == 422)
        #expect(try await fixture.acme.get("/api/batches/nope").status == 404)
    }

    @Test(arguments: ServerStoreKind.allCases) func filtersSelectOrders(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let client = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        func order(_ id: String, carrier: String, zone: String, shipBy: String) -> [String: Any] {
            [
                "id": id, "carrier": carrier, "zone": zone, "shipBy": shipBy,
                "lines": [["id": "l", "sku": "S-\(id)", "location": "L-\(id)", "barcode": "5901234123457", "qty": 1]],
            ]
        }
        let upsert = try await client.post(
            "/api/orders",
            json: [
                "orders": [
                    order("a", carrier: "UPS", zone: "Z1", shipBy: "2026-12-01"),
                    order("b", carrier: "UPS", zone: "Z2", shipBy: "2026-12-05"),
                    order("c", carrier: "DHL", zone: "Z1", shipBy: "2026-12-01"),
                    order("d", carrier: "DHL", zone: "Z2", shipBy: "2026-12-09"),
                ]
            ])
        #expect(upsert.json["upserted"] as? Int == 4)
        func batchOrders(_ filters: [String: Any]) async throws -> [String] {
            let reply = try await client.post("/api/batches", json: ["filters": filters])
            return (reply.json["tasks"] as? [[String: Any]] ?? []).compactMap { $0["orderId"] as? String }
        }
        #expect(try await batchOrders(["carrier": "UPS", "zone": "Z2"]) == ["b"])
        #expect(try await batchOrders(["shipByOnOrBefore": "2026-12-01"]) == ["a", "c"])
        #expect(try await batchOrders(["orderIds": ["d", "zzz"]]) == ["d"])
        #expect(try await batchOrders([:]) == [])
    }

    /// A filter the server does not know would, ignored, match every order: a typo must not turn
    /// "UPS's orders" into "all of them".
    @Test(arguments: ServerStoreKind.allCases) func anUnknownFilterIsRefusedNotIgnored(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let lines = [["id": "l", "sku": "S", "location": "L", "barcode": "5901234123457", "qty": 1]]
        let orders = [["id": "fresh", "carrier": "UPS", "zone": "Z", "shipBy": "2026-12-01", "lines": lines]]
        let long = String(repeating: "k", count: 500)  // a field name is cut in the message
        #expect(try await fixture.acme.post("/api/orders", json: ["orders": orders]).status == 200)
        for (body, field) in [
            (["filters": ["carier": "UPS"]] as [String: Any], "filters.carier"),
            (["filters": ["carrier": "UPS", "colour": "red"]], "filters.colour"),
            (["filters": [:] as [String: Any], "orderIds": ["fresh"]], "orderIds"),
            (["filters": [long: 1]], "filters." + long.prefix(64) + "…"),
        ] {
            let refused = try await fixture.acme.post("/api/batches", json: body)
            #expect(refused.status == 400, "\(body)")
            #expect(refused.errorCode == "invalid_field")
            let message = refused.json["message"] as? String ?? ""
            #expect(message.hasPrefix(field + " is not a field here"), "\(message)")
        }
        // Nothing was batched by the refusals: the order's line is still free for a batch.
        let batch = try await fixture.acme.post("/api/batches", json: ["filters": ["orderIds": ["fresh"]]])
        #expect(batch.status == 201)
        #expect((batch.json["tasks"] as? [[String: Any]])?.count == 1)
    }

    @Test(arguments: ServerStoreKind.allCases) func upsertingAnOrderUpdatesItsLines(store: ServerStoreKind) async throws
    {
        let fixture = try await PickingFixture(store: store)
        let lowered = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: ["id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 1])
        #expect(lowered.json["upserted"] as? Int == 1)
        #expect(try await fixture.task(fixture.tasks[0])["qtyRequired"] as? Int == 1)
    }

    @Test(arguments: ServerStoreKind.allCases) func organisationsCannotSeeOrTouchEachOther(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let task = fixture.tasks[0]
        #expect(try await fixture.globex.get("/api/batches/\(fixture.batchId)").status == 404)
        #expect(try await fixture.scan(task, "036000291452", as: fixture.globex).status == 404)
        #expect(
            try await fixture.globex.post("/api/batches", json: ["filters": ["orderIds": ["o1"]]]).status == 422)
        // A shipment of acme's cannot be voided by globex, nor its order shipped.
        _ = try await fixture.scan(task, "036000291452")
        let shipment = try await fixture.acme.post(
            "/api/shipments",
            json: [
                "orderId": "o1", "units": [["pickTaskId": task, "qty": 1]], "idempotencyKey": "s1", "at": fixture.at,
            ])
        let shipmentId = try #require(shipment.json["id"] as? String)
        #expect(
            try await fixture.globex.post(
                "/api/shipments/\(shipmentId)/void", json: ["idempotencyKey": "v1", "at": fixture.at]
            ).status
                == 404)
        #expect(
            try await fixture.globex.post(
                "/api/shipments",
                json: [
                    "orderId": "o1", "units": [["pickTaskId": task, "qty": 1]], "idempotencyKey": "s1",
                    "at": fixture.at,
                ]
            ).status == 404)
        // An order of the same id upserted by globex is globex's own; acme's is untouched.
        let globexOrder = try await fixture.globex.upsertOrder(
            "o1", carrier: "UPS", zone: "Z", shipBy: "2027-01-01",
            line: ["id": "l1", "sku": "G", "location": "G1", "barcode": "1", "qty": 9])
        #expect(globexOrder.status == 200)
        #expect(try await fixture.task(task)["qtyRequired"] as? Int == 3)
        #expect(try await fixture.task(task)["sku"] as? String == "SKU-A1")
        // Keys are per organisation: globex's "k" does not replay acme's "k".
        let acmeScan = try await fixture.scan(task, "036000291452", key: "shared-key")
        #expect(acmeScan.status == 200)
        let globexScan = try await fixture.scan(task, "036000291452", key: "shared-key", as: fixture.globex)
        #expect(globexScan.status == 404)
        #expect(globexScan.headers["idempotent-replayed"] == nil)
    }

    @Test(arguments: ServerStoreKind.allCases) func badInputIsRefusedAndTheServerGoesOn(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let client = fixture.acme
        func raw(_ path: String, _ body: [UInt8]) async throws -> APIClient.Reply {
            try await client.send("POST", path, body: Data(body))
        }
        #expect(try await raw("/api/orders", Array("{not json".utf8)).status == 400)
        let wrongType = try await client.post("/api/orders", json: ["orders": "many"])
        #expect(wrongType.status == 400)
        #expect(wrongType.json["message"] as? String == "field 'orders' must be a list")
        let missing = try await client.post("/api/picking/pick", json: ["qty": 1, "idempotencyKey": "k"])
        #expect(missing.status == 400)
        #expect((missing.json["message"] as? String)?.hasPrefix("missing field") == true)
        #expect(try await raw("/api/orders", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]).status == 400)
        let huge = try await raw("/api/orders", Array(repeating: 0x20, count: (1 << 20) + 10))
        #expect(huge.status == 413)
        #expect(try await client.get("/api/unknown").status == 404)
        let wrongMethod = try await client.get("/api/orders")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "POST")
        // Nothing was half-applied and the server still works.
        #expect(try await fixture.picked(fixture.tasks[0]) == 0)
        #expect(try await fixture.scan(fixture.tasks[0], "036000291452").status == 200)
    }
}
