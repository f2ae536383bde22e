import Digest
import Foundation
import HTTPServing
import Logging
import Server
import TestSupport
import Testing
import Timestamps

/// What a pick is besides its counts: the product's name (kept from the order line, checked like
/// any text), the tote of its order, and a complete batch closing by itself
/// `batches.autoCloseMinutes` after its last change. Against a real `scanpick serve` (and the
/// closing's cut-off against the API in-process, at set times), on both stores.
@Suite struct NamesTotesAndAutoCloseTests {
    @Test(arguments: ServerStoreKind.allCases) func tasksCarryTheirNameAndTheirOrdersTote(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let (a1, b3, c2) = (fixture.tasks[0], fixture.tasks[1], fixture.tasks[2])
        // Orders o1 (A1, C2) and o2 (B3), in pick order A1, B3, C2: o1 is tote 1, o2 tote 2.
        let batch = try await fixture.acme.get("/api/batches/\(fixture.batchId)")
        let tasks = try #require(batch.json["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["tote"] as? Int } == [1, 2, 1])
        #expect(tasks.map { $0["orderId"] as? String } == ["o1", "o2", "o1"])
        #expect(tasks.allSatisfy { $0["name"] == nil })
        #expect(tasks.allSatisfy { $0["qtyShort"] as? Int == 0 })

        // The ERP names o1's first line (200 characters, not ASCII); the task shows it at once.
        let name = "COFFEE ARABICA 1KG é " + String(repeating: "☕", count: 179)
        #expect(name.count == 200)
        let named = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: ["id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 3, "name": name])
        #expect(named.status == 200)
        #expect(try await fixture.task(a1)["name"] as? String == name)
        // A pick's answer carries the name and the tote too.
        let pick = try await fixture.pick(a1, qty: 1)
        #expect(pick.pickTask["name"] as? String == name)
        #expect(pick.pickTask["tote"] as? Int == 1)
        #expect(try await fixture.pick(b3, qty: 1).pickTask["tote"] as? Int == 2)
        _ = c2

        // A name is checked like any text: nothing is stored when one line's is wrong.
        for bad in ["", String(repeating: "n", count: 201), "COFFEE\u{0}1KG", "COFFEE\n1KG", "\u{202E}GK1 EEFFOC"] {
            let refused = try await fixture.acme.upsertOrder(
                "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
                line: ["id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 3, "name": bad])
            #expect(refused.status == 400, "\(bad.debugDescription)")
            #expect(refused.errorCode == "invalid_field")
            #expect((refused.json["message"] as? String)?.hasPrefix("orders[0].lines[0].name ") == true)
        }
        let number = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: ["id": "l1", "sku": "SKU-A1", "location": "A1", "barcode": "036000291452", "qty": 3, "name": 7])
        #expect(number.status == 400)
        #expect(try await fixture.task(a1)["name"] as? String == name)
    }

    /// A new batch numbers its own orders from 1, in the order its tasks first list them.
    @Test(arguments: ServerStoreKind.allCases) func totesAreNumberedPerBatchInPickOrder(store: ServerStoreKind)
        async throws
    {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        func order(_ id: String, _ lines: [(String, String)]) -> [String: Any] {
            [
                "id": id, "carrier": "UPS", "zone": "B", "shipBy": "2026-12-01",
                "lines": lines.map {
                    ["id": $0.0, "sku": "S-\($0.1)", "location": $0.1, "barcode": "5901234123457", "qty": 1]
                },
            ]
        }
        let orders = [
            order("x-9", [("1", "D4")]), order("x-1", [("1", "B2"), ("2", "E5")]),
            order("x-5", [("1", "A1"), ("2", "C3")]),
        ]
        #expect(try await acme.post("/api/orders", json: ["orders": orders]).status == 200)
        let batch = try await acme.post("/api/batches", json: ["filters": ["carrier": "UPS"]])
        let tasks = try #require(batch.json["tasks"] as? [[String: Any]])
        #expect(tasks.map { $0["location"] as? String } == ["A1", "B2", "C3", "D4", "E5"])
        #expect(tasks.map { $0["tote"] as? Int } == [1, 2, 1, 3, 2])
    }

    /// `scanpick serve` closes a complete batch once `batches.autoCloseMinutes` have passed since
    /// its last change (here 0.02 min, 1.2 s).
    @Test(arguments: ServerStoreKind.allCases) func theServerClosesACompleteBatchByItself(store: ServerStoreKind)
        async throws
    {
        let server = try await ServerProcess(store: store, extraConfig: ["batches": ["autoCloseMinutes": 0.02]])
        let fixture = try await PickingFixture(server: server)
        let (a1, b3, c2) = (fixture.tasks[0], fixture.tasks[1], fixture.tasks[2])
        #expect(try await fixture.pick(a1, qty: 3).status == 200)
        #expect(try await fixture.short(b3, qty: 2, reason: "damaged").status == 200)
        #expect(try await fixture.status() == "open")
        let completing = Date()  // the server's last change is after this
        #expect(try await fixture.pick(c2, qty: 1).status == 200)
        // Complete (unless a loaded machine took 1.2 s to ask), then closed by the server.
        #expect(["complete", "closed"].contains(try await fixture.status()))
        #expect(try await eventually { try await fixture.status() == "closed" })
        #expect(Date().timeIntervalSince(completing) >= 1.2)
        #expect(try await fixture.short(a1, qty: 1).errorCode == "batch_closed")
    }

    /// The cut-off, at set times: a complete batch closes `autoCloseMinutes` after its last change,
    /// not before; an open one is left alone; a closed one keeps its close time.
    @Test(arguments: ServerStoreKind.allCases) func aCompleteBatchClosesAfterItsQuietTime(store: ServerStoreKind)
        async throws
    {
        let folder = try TemporaryDirectory()
        let database: ServerDatabase =
            switch store {
            case .sqlite: .sqlite(path: folder.file("s.sqlite"))
            case .postgres: .postgres(connectionString: try await PostgresCluster.sharedDatabase())
            }
        let configuration = ServerConfiguration(
            listen: ListenAddress(host: "127.0.0.1", port: 0), database: database,
            organisations: ["acme": [SHA256.hex(of: "t")]], batchAutoCloseMinutes: 10)
        // The API's calls block (a database's commit): on threads of their own, never the task pool's.
        let api = try await onOwnThread { try ScanPickAPI(configuration: configuration, logger: .discarding) }
        #expect(api.batchAutoCloseInterval == .seconds(60))
        func send(_ method: String, _ path: String, _ json: String = "") async throws -> [String: Any] {
            let body = try await onOwnThread {
                api.handle(
                    HTTPRequest(
                        method: method, path: path, headers: ["authorization": "Bearer t"], body: Array(json.utf8))
                ).body
            }
            return (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
        }
        func closeIdleBatches(at now: Date) async throws -> Int {
            try await onOwnThread { try api.closeIdleBatches(now: now) }
        }
        _ = try await send(
            "POST", "/api/orders",
            #"{"orders":[{"id":"o","carrier":"c","zone":"z","shipBy":"2026-12-09","lines":[{"id":"l","sku":"s","location":"A","barcode":"1","qty":2}]},{"id":"p","carrier":"d","zone":"z","shipBy":"2026-12-09","lines":[{"id":"l","sku":"s","location":"A","barcode":"1","qty":2}]}]}"#
        )
        let complete = try #require(
            try await send("POST", "/api/batches", #"{"filters":{"carrier":"c"}}"#)["id"] as? String)
        let open = try #require(
            try await send("POST", "/api/batches", #"{"filters":{"carrier":"d"}}"#)["id"] as? String)
        let task = try #require(
            (try await send("GET", "/api/batches/\(complete)")["tasks"] as? [[String: Any]])?.first?["id"])
        let now = Date()
        _ = try await send(
            "POST", "/api/picking/short",
            #"{"pickTaskId":"\#(task)","qty":2,"reason":"not_found","idempotencyKey":"k1","workerId":"w","at":"\#(Timestamp.iso8601(now))"}"#
        )
        #expect(try await send("GET", "/api/batches/\(complete)")["status"] as? String == "complete")
        #expect(try await closeIdleBatches(at: now.addingTimeInterval(9 * 60)) == 0)
        #expect(try await send("GET", "/api/batches/\(complete)")["status"] as? String == "complete")
        let later = now.addingTimeInterval(10 * 60 + 5)
        #expect(try await closeIdleBatches(at: later) == 1)
        let closed = try await send("GET", "/api/batches/\(complete)")
        #expect(closed["status"] as? String == "closed")
        #expect(closed["closedAt"] as? String == Timestamp.iso8601(later))
        #expect(try await send("GET", "/api/batches/\(open)")["status"] as? String == "open")
        #expect(try await closeIdleBatches(at: later.addingTimeInterval(86_400)) == 0)
        #expect(try await send("GET", "/api/batches/\(complete)")["closedAt"] as? String == Timestamp.iso8601(later))
    }

    /// `batches.autoCloseMinutes` is read strictly and bounded; the server looks a tenth of it often,
    /// between 0.1 s and a minute.
    @Test func theQuietTimeIsBounded() async throws {
        let folder = try TemporaryDirectory()
        func load(_ batches: String) throws -> ServerConfiguration {
            try ServerConfiguration.load(
                path: try folder.write("server.json", text: #"{"organisations": {}, "batches": \#(batches)}"#))
        }
        #expect(try load("{}").batchAutoCloseMinutes == 10)
        #expect(try load(#"{"autoCloseMinutes": 0.5}"#).batchAutoCloseMinutes == 0.5)
        for refused in [
            #"{"autoCloseMinutes": 0}"#, #"{"autoCloseMinutes": -1}"#, #"{"autoCloseMinutes": 1e300}"#,
            #"{"autoCloseMinutes": "10"}"#,
        ] {
            #expect(throws: (any Error).self, "\(refused)") { try load(refused) }
        }
        #expect {
            try load(#"{"autoClosMinutes": 5}"#)
        } throws: { error in
            String(describing: error).contains("autoCloseMinutes")
        }
        func interval(_ minutes: Double) async throws -> Duration {
            try await onOwnThread {
                try ScanPickAPI(
                    configuration: ServerConfiguration(
                        listen: ListenAddress(host: "127.0.0.1", port: 0),
                        database: .sqlite(path: folder.file("i.sqlite")), organisations: [:],
                        batchAutoCloseMinutes: minutes), logger: .discarding
                ).batchAutoCloseInterval
            }
        }
        #expect(try await interval(10) == .seconds(60))
        #expect(try await interval(5) == .seconds(30))
        #expect(try await interval(0.01) == .milliseconds(100))
    }

    /// A close may carry the key a station queued it under: it is echoed (a station counts an
    /// action as sent only on an answer carrying its key), and closing again changes nothing.
    @Test(arguments: ServerStoreKind.allCases) func aQueuedCloseIsAnsweredWithItsKey(store: ServerStoreKind)
        async throws
    {
        let fixture = try await PickingFixture(store: store)
        let path = "/api/batches/\(fixture.batchId)/close"
        let body: [String: Any] = ["idempotencyKey": "close-1", "at": fixture.at, "workerId": "w"]
        let first = try await fixture.acme.post(path, json: body, headers: ["Idempotency-Key": "close-1"])
        #expect(first.status == 200)
        #expect(first.headers["idempotency-key"] == "close-1")
        #expect(first.json["status"] as? String == "closed")
        let again = try await fixture.acme.post(path, json: body)
        #expect(again.headers["idempotency-key"] == "close-1")
        #expect(again.json["closedAt"] as? String == first.json["closedAt"] as? String)
        #expect(try await fixture.acme.post(path, json: [:] as [String: Any]).headers["idempotency-key"] == nil)
        let disagree = try await fixture.acme.post(path, json: body, headers: ["Idempotency-Key": "close-2"])
        #expect(disagree.status == 400)
        let badKey = try await fixture.acme.post(path, json: ["idempotencyKey": "bad key"])
        #expect(badKey.errorCode == "invalid_field")
    }
}
