import Foundation
import TestSupport
import Testing

/// What a hostile tenant with a valid token sends: extreme numbers, control characters, repeated
/// headers. Every answer is a JSON 4xx or a correct 2xx, nothing of another organisation (or of the
/// same one) is touched, and the server stays up.
@Suite struct HostileInputTests {
    /// Extreme and malformed values, as JSON text, for every numeric field.
    static let extremes = [
        "0", "-1", "1", "100000", "100001", "-9223372036854775808", "9223372036854775807", "9007199254740991",
        "9007199254740993", "18446744073709551616", "1e400", "-1e400", "1.5", "\"1\"", "null", "true", "[]",
    ]

    /// Random integers of every magnitude, the same on every run.
    static func randomIntegers(_ count: Int) -> [String] {
        var state: UInt64 = 0x5EED_1234
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let magnitude = Int64(bitPattern: state >> 1) >> Int64(state % 63)
            return String(state & 1 == 0 ? magnitude : -magnitude)
        }
    }

    /// The quantity as the server will take it, when the JSON text is a whole number Swift's `Int` holds.
    static func integer(_ text: String) -> Int? { Int(text) }

    @Test(arguments: ServerStoreKind.allCases)
    func everyNumericFieldOfEveryRouteTakesExtremeValues(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let scenario = try await PickingScenario.create(on: acme, bulkQty: 100_000)
        let bulk = scenario.tasks[3]
        var picked = 0
        var key = 0
        func post(_ path: String, _ body: String) async throws -> APIClient.Reply {
            key += 1
            let reply = try await acme.send(
                "POST", path, body: Data(body.utf8), headers: ["Idempotency-Key": "fuzz-\(key)"])
            #expect(reply.headers["content-type"] == "application/json", "\(path) \(body)")
            #expect((200..<300).contains(reply.status) || (400..<500).contains(reply.status), "\(path) \(body)")
            if reply.status >= 400 { #expect(reply.errorCode != nil, "\(path) \(body): \(reply.text)") }
            return reply
        }
        /// A whole number out of `range` is 422 invalid_quantity; text that is no whole number is 400,
        /// and its message names the field (`field`: the first one the value was given for).
        func expectRefusal(_ reply: APIClient.Reply, _ value: String, range: ClosedRange<Int>, field: String) {
            if let number = Self.integer(value) {
                if !range.contains(number) { #expect(reply.errorCode == "invalid_quantity", "\(value): \(reply.text)") }
            } else {
                #expect(reply.status == 400, "\(value): \(reply.text)")
                #expect(reply.text.contains("'\(field)'"), "\(value): \(reply.text)")
            }
        }
        let values = Self.extremes + Self.randomIntegers(40)

        for value in values {
            let pick = try await post(
                "/api/picking/pick", #"{"pickTaskId":"\#(bulk)","qty":\#(value),"workerId":"w","at":"\#(actionTime)"}"#)
            if let number = Self.integer(value), (1...100_000).contains(number), picked + number <= 100_000 {
                #expect(pick.status == 200, "\(value): \(pick.text)")
                picked += number
            } else if let number = Self.integer(value), (1...100_000).contains(number) {
                #expect(pick.errorCode == "over_pick")
            } else {
                expectRefusal(pick, value, range: 1...100_000, field: "qty")
            }
            #expect(try await scenario.picked(on: acme)[bulk] == picked, "after pick \(value)")

            let setQty = try await post(
                "/api/picking/set-qty",
                #"{"pickTaskId":"\#(bulk)","from":\#(value),"to":\#(value),"workerId":"w","at":"\#(actionTime)"}"#)
            if let number = Self.integer(value), (0...100_000).contains(number) {
                #expect(setQty.status == 200, "\(value): \(setQty.text)")
                picked = number
            } else {
                expectRefusal(setQty, value, range: 0...100_000, field: "from")
            }
            #expect(try await scenario.picked(on: acme)[bulk] == picked, "after set-qty \(value)")

            let shipment = try await post(
                "/api/shipments",
                #"{"orderId":"o3","units":[{"pickTaskId":"\#(bulk)","qty":\#(value)}],"at":"\#(actionTime)"}"#)
            if let number = Self.integer(value), (1...100_000).contains(number) {
                #expect([201, 422].contains(shipment.status), "\(value): \(shipment.text)")
                if shipment.status == 201, let id = shipment.json["id"] as? String {
                    #expect(try await post("/api/shipments/\(id)/void", #"{"at":"\#(actionTime)"}"#).status == 200)
                }
            } else {
                expectRefusal(shipment, value, range: 1...100_000, field: "units[0].qty")
            }

            let order = try await post(
                "/api/orders",
                #"{"orders":[{"id":"fuzz","carrier":"UPS","zone":"Z","shipBy":"2026-12-09","lines":[{"id":"l1","sku":"S","location":"Z1","barcode":"4006381333931","qty":\#(value)}]}]}"#
            )
            if let number = Self.integer(value), (0...100_000).contains(number) {
                #expect(order.status == 200, "\(value): \(order.text)")
            } else {
                expectRefusal(order, value, range: 0...100_000, field: "orders[0].lines[0].qty")
            }
        }
        // The crash this test was written for: a huge pick on a task that already has units.
        _ = try await post(
            "/api/picking/set-qty", #"{"pickTaskId":"\#(bulk)","from":0,"to":1,"workerId":"w","at":"\#(actionTime)"}"#)
        let huge = try await post(
            "/api/picking/pick",
            #"{"pickTaskId":"\#(bulk)","qty":9223372036854775807,"workerId":"w","at":"\#(actionTime)"}"#)
        #expect(huge.status == 422)
        #expect(huge.errorCode == "invalid_quantity")
        #expect(server.isRunning)
        #expect(try await acme.get("/health").status == 200)
        #expect(try await scenario.picked(on: acme)[bulk] == 1)
    }

    @Test(arguments: ServerStoreKind.allCases)
    func controlCharactersAreRefusedAndCollideWithNothing(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let acme = fixture.acme
        func order(_ id: String, qty: Int) -> [String: Any] {
            [
                "id": id, "carrier": "UPS", "zone": "Z", "shipBy": "2026-12-09",
                "lines": [["id": "l1", "sku": "S9", "location": "Z9", "barcode": "4006381333931", "qty": qty]],
            ]
        }
        #expect(try await acme.post("/api/orders", json: ["orders": [order("o9", qty: 5)]]).status == 200)
        let collided = try await acme.post("/api/orders", json: ["orders": [order("o9\u{0}-other", qty: 1)]])
        #expect(collided.status == 400)
        #expect(collided.errorCode == "invalid_field")
        #expect((collided.json["message"] as? String)?.hasPrefix("orders[0].id") == true)
        let batch = try await acme.post("/api/batches", json: ["filters": ["orderIds": ["o9"]]])
        let tasks = try #require(batch.json["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["qtyRequired"] as? Int } == [5])

        let task = fixture.tasks[0]
        let cases: [(field: String, body: [String: Any])] = [
            ("pickTaskId", ["pickTaskId": task + "\u{0}zzz", "qty": 1, "workerId": "w", "at": actionTime]),
            ("workerId", ["pickTaskId": task, "qty": 1, "workerId": "w\u{1}x", "at": actionTime]),
            ("at", ["pickTaskId": task, "qty": 1, "workerId": "w", "at": "t\n"]),
            (
                "idempotencyKey",
                ["pickTaskId": task, "qty": 1, "workerId": "w", "at": actionTime, "idempotencyKey": "k\u{0}"]
            ),
        ]
        for (field, body) in cases {
            var keyed = body
            if keyed["idempotencyKey"] == nil { keyed["idempotencyKey"] = UUID().uuidString }
            let reply = try await acme.post("/api/picking/pick", json: keyed)
            #expect(reply.status == 400, "\(field)")
            #expect(reply.errorCode == "invalid_field", "\(field)")
            #expect((reply.json["message"] as? String)?.hasPrefix(field) == true, "\(field): \(reply.text)")
        }
        let scan = try await fixture.scan(task, "036000291452\u{7F}")
        #expect(scan.errorCode == "invalid_field")
        #expect((scan.json["message"] as? String)?.hasPrefix("barcode") == true)
        #expect(try await fixture.picked(task) == 0)

        // An escaped NUL in the path stays escaped: it does not end the id early.
        let token = try #require(ServerProcess.tokens["acme"])
        let (port, batchId) = (fixture.server.port, fixture.batchId)
        let reply = try await onOwnThread {
            try RawConnection(port: port).exchange(
                "GET /api/batches/\(batchId)%00zzz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n"
            ).0
        }
        #expect(reply?.status == 404)
        #expect((reply?.json["message"] as? String)?.contains("%00zzz") == true)
        #expect(try await fixture.scan(task, "036000291452").status == 200)
    }

    @Test(arguments: ServerStoreKind.allCases)
    func repeatedAuthorizationOrKeyHeadersAreRefused(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let acme = try #require(ServerProcess.tokens["acme"])
        let globex = try #require(ServerProcess.tokens["globex"])
        let body = #"{"pickTaskId":"\#(fixture.tasks[0])","qty":1,"workerId":"w","at":"\#(actionTime)"}"#
        let requests = [
            (
                "Authorization",
                "Authorization: Bearer \(acme)\r\nAuthorization: Bearer \(globex)\r\nIdempotency-Key: k1\r\n"
            ),
            ("Idempotency-Key", "Authorization: Bearer \(acme)\r\nIdempotency-Key: k1\r\nIdempotency-Key: k2\r\n"),
            (
                "X-ScanPick-Clock",
                "Authorization: Bearer \(acme)\r\nIdempotency-Key: k3\r\nX-ScanPick-Clock: 2026-12-01T10:00:00.000Z\r\n"
                    + "X-ScanPick-Clock: 1970-01-01T00:00:00.000Z\r\n"
            ),
        ]
        for (name, headers) in requests {
            let port = fixture.server.port
            let reply = try await onOwnThread {
                try RawConnection(port: port).exchange(
                    "POST /api/picking/pick HTTP/1.1\r\nHost: x\r\n\(headers)Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                ).0
            }
            #expect(reply?.status == 400, "\(name)")
            #expect(reply?.json["error"] as? String == "duplicate_header", "\(name)")
            #expect((reply?.json["message"] as? String)?.contains(name) == true)
        }
        #expect(try await fixture.picked(fixture.tasks[0]) == 0)
    }

    /// A field given twice is refused whichever value a parser would keep (Foundation keeps one, a
    /// proxy in front may keep the other): nothing is counted on a guess.
    @Test func aFieldGivenTwiceIsRefused() async throws {
        let fixture = try await PickingFixture(store: .sqlite)
        let task = fixture.tasks[0]
        let bodies = [
            (
                "/api/picking/pick", #"{"pickTaskId":"\#(task)","qty":1,"qty":3,"workerId":"w","at":"\#(actionTime)"}"#,
                "qty"
            ),
            (
                "/api/picking/submit-scan",
                #"{"pickTaskId":"\#(task)","barcode":"036000291452","barcode":"x","scannedAt":"\#(actionTime)","idempotencyKey":"k2","workerId":"w"}"#,
                "barcode"
            ),
            ("/api/batches", #"{"filters":{"carrier":"UPS","carrier":"DHL"}}"#, "filters.carrier"),
            // Written with escapes, a key is the same key (the flat reader leaves escapes to the decoder).
            (
                "/api/picking/pick",
                #"{"pickTaskId":"\#(task)","qty":1,"q\u0074y":7,"workerId":"w","at":"\#(actionTime)"}"#, "qty"
            ),
            (
                "/api/picking/pick",
                #"{"pickTaskId":"\#(task)","\u0071ty":1,"qt\u0079":7,"workerId":"w","at":"\#(actionTime)"}"#,
                "qty"
            ),
            ("/api/batches", #"{"filters":{"carrier":"UPS","c\u0061rrier":"DHL"}}"#, "filters.carrier"),
        ]
        for (path, body, field) in bodies {
            let reply = try await fixture.acme.send("POST", path, body: Data(body.utf8))
            #expect(reply.status == 400, "\(path)")
            #expect(reply.errorCode == "invalid_field", "\(path)")
            #expect((reply.json["message"] as? String)?.hasPrefix("\(field) is given twice") == true, "\(reply.json)")
        }
        #expect(try await fixture.picked(task) == 0)
    }

    /// Every time a request carries is RFC 3339 with a zone: a time without one, a date alone or
    /// words are refused as the field they are (they also escaped the idempotency horizon's check).
    @Test(arguments: ServerStoreKind.allCases)
    func aTimeWithoutAZoneIsRefused(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let task = fixture.tasks[0]
        for bad in ["2026-10-26T18:17:36", "2026-10-26", "not a time", "2026-10-26T18:17:36.5+2", "t"] {
            let bodies: [(String, [String: Any], String)] = [
                ("/api/picking/pick", ["pickTaskId": task, "qty": 1, "workerId": "w", "at": bad], "at"),
                ("/api/picking/set-qty", ["pickTaskId": task, "from": 0, "to": 1, "workerId": "w", "at": bad], "at"),
                (
                    "/api/picking/submit-scan",
                    ["pickTaskId": task, "barcode": "036000291452", "scannedAt": bad, "workerId": "w"], "scannedAt"
                ),
                ("/api/shipments", ["orderId": "o-1", "units": [["pickTaskId": task, "qty": 1]], "at": bad], "at"),
            ]
            for (path, body, field) in bodies {
                let reply = try await fixture.acme.post(
                    path, json: body, headers: ["Idempotency-Key": UUID().uuidString])
                #expect(reply.status == 400, "\(path) \(bad): \(reply.text)")
                #expect(reply.errorCode == "invalid_field", "\(path) \(bad)")
                let message = reply.json["message"] as? String ?? ""
                #expect(message.hasPrefix("\(field) must be a time with its zone"), "\(message)")
            }
        }
        #expect(try await fixture.picked(task) == 0)
        // A leap second, as a station's clock may show it, is a time.
        let leap = try await fixture.acme.post(
            "/api/picking/pick", json: ["pickTaskId": task, "qty": 1, "workerId": "w", "at": "2016-12-31T23:59:60Z"],
            headers: ["Idempotency-Key": UUID().uuidString])
        #expect(leap.errorCode == "too_old_to_deduplicate", "\(leap.text)")
    }

    /// Nesting Foundation refuses is described without recursing past the stack of a worker thread
    /// (a debug build once crashed on 513 levels), on every route that reads JSON on one.
    @Test func deeplyNestedBodiesAre400sNotCrashes() async throws {
        let fixture = try await PickingFixture(store: .sqlite)
        for depth in [513, 5_000] {
            let deep = #"{"x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            for path in ["/api/orders", "/api/batches", "/api/stations/heartbeat", "/api/picking/submit-scan"] {
                let reply = try await fixture.acme.send("POST", path, body: Data(deep.utf8))
                #expect(reply.status == 400, "\(path) at \(depth)")
            }
        }
        #expect(fixture.server.isRunning)
        #expect(try await fixture.pick(fixture.tasks[0], qty: 1).status == 200)
    }
}
