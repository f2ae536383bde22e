import Foundation
import Server
import TestSupport
import Testing
import Timestamps
import Wire

/// The idempotency horizon: a request whose key the server does not know and whose action is older
/// than the retention window less the margin is refused, never counted again. A real server with a
/// short window (1 day, 1 h margin: the horizon is 23 h back).
@Suite struct IdempotencyHorizonTests {
    static let shortWindow: [String: Int] = ["idempotencyRetentionDays": 1, "idempotencyMarginHours": 1]

    @Test(arguments: ServerStoreKind.allCases) func anUnknownKeyOlderThanTheHorizonIsRefused(store: ServerStoreKind)
        async throws
    {
        let server = try await ServerProcess(store: store, extraConfig: Self.shortWindow)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let scenario = try await PickingScenario.create(on: acme)
        let (a1, b3) = (scenario.tasks[0], scenario.tasks[1])
        let twoDaysAgo = Timestamp.iso8601(Date().addingTimeInterval(-2 * 86_400))
        let anHourAgo = Timestamp.iso8601(Date().addingTimeInterval(-3_600))

        for (path, body) in [
            ("/api/picking/pick", ["pickTaskId": a1, "qty": 1, "workerId": "w", "at": twoDaysAgo] as [String: Any]),
            ("/api/picking/set-qty", ["pickTaskId": a1, "from": 0, "to": 2, "workerId": "w", "at": twoDaysAgo]),
            (
                "/api/picking/submit-scan",
                ["pickTaskId": a1, "barcode": "036000291452", "workerId": "w", "scannedAt": twoDaysAgo]
            ),
            ("/api/shipments", ["orderId": "o1", "units": [["pickTaskId": a1, "qty": 1]], "at": twoDaysAgo]),
        ] {
            var keyed = body
            keyed["idempotencyKey"] = UUID().uuidString
            let refused = try await acme.post(path, json: keyed)
            #expect(refused.status == 422, "\(path)")
            #expect(refused.errorCode == "too_old_to_deduplicate", "\(path)")
        }
        #expect(try await scenario.picked(on: acme)[a1] == 0)

        // Inside the horizon it counts, and its key replays as before.
        let recent: [String: Any] = [
            "pickTaskId": b3, "qty": 1, "workerId": "w", "at": anHourAgo, "idempotencyKey": "recent",
        ]
        #expect(try await acme.post("/api/picking/pick", json: recent).status == 200)
        #expect(try await acme.post("/api/picking/pick", json: recent).headers["idempotent-replayed"] == "true")
        #expect(try await scenario.picked(on: acme)[b3] == 1)

        // Shipments are judged the same way, and without their action time they are refused.
        let box: [String: Any] = ["orderId": "o2", "units": [["pickTaskId": b3, "qty": 1]], "idempotencyKey": "box"]
        let untimed = try await acme.post("/api/shipments", json: box)
        #expect(untimed.status == 400)
        #expect(untimed.text.contains("at is required"), "\(untimed.text)")
        let shipment = try await acme.post("/api/shipments", json: box.merging(["at": anHourAgo]) { $1 })
        #expect(shipment.status == 201, "\(shipment.text)")
        let void = "/api/shipments/\(try #require(shipment.json["id"] as? String))/void"
        #expect(try await acme.post(void, json: ["idempotencyKey": "v"]).status == 400)
        let oldVoid = try await acme.post(void, json: ["idempotencyKey": "v-old", "at": twoDaysAgo])
        #expect(oldVoid.errorCode == "too_old_to_deduplicate", "\(oldVoid.text)")
        #expect(try await acme.post(void, json: ["idempotencyKey": "v-now", "at": anHourAgo]).status == 200)
    }

    /// The horizon is judged on the station's clock, so that clock is judged first: a station clock
    /// (X-ScanPick-Clock) or an action time further than the margin from the server's is refused as
    /// clock_skew, never as too old and never counted; a replay of a known key is still answered.
    @Test(arguments: ServerStoreKind.allCases) func aStationClockOffByMoreThanTheMarginIsRefused(
        store: ServerStoreKind
    ) async throws {
        let server = try await ServerProcess(store: store, extraConfig: Self.shortWindow)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let scenario = try await PickingScenario.create(on: acme)
        let a1 = scenario.tasks[0]
        let now = Date()
        let booted2000 = Timestamp.iso8601(Date(timeIntervalSince1970: 946_684_800))
        let threeHoursAhead = Timestamp.iso8601(now.addingTimeInterval(3 * 3_600))
        let aMinuteAgo = Timestamp.iso8601(now.addingTimeInterval(-60))
        func pick(at: String, clock: String?, key: String = UUID().uuidString) async throws -> APIClient.Reply {
            try await acme.post(
                "/api/picking/pick",
                json: ["pickTaskId": a1, "qty": 1, "workerId": "w", "at": at, "idempotencyKey": key],
                headers: clock.map { ["X-ScanPick-Clock": $0] } ?? [:])
        }

        // A station booted at 2000-01-01: its clock is refused, not its actions judged too old.
        let behind = try await pick(at: booted2000, clock: booted2000)
        #expect(behind.status == 422)
        #expect(behind.errorCode == "clock_skew", "\(behind.text)")
        #expect((behind.json["message"] as? String)?.contains("set the station's clock") == true)
        // A clock running ahead, with or without the header: its action times are in the future.
        for clock in [threeHoursAhead, nil] {
            let ahead = try await pick(at: threeHoursAhead, clock: clock)
            #expect(ahead.errorCode == "clock_skew", "\(ahead.text)")
        }
        let badHeader = try await pick(at: aMinuteAgo, clock: "yesterday")
        #expect(badHeader.status == 400)
        #expect(try await scenario.picked(on: acme)[a1] == 0)

        // A right clock counts; its key then replays even from a clock gone wrong since.
        #expect(try await pick(at: aMinuteAgo, clock: Timestamp.iso8601(), key: "k-clock").status == 200)
        let replay = try await pick(at: aMinuteAgo, clock: booted2000, key: "k-clock")
        #expect(replay.status == 200)
        #expect(replay.headers["idempotent-replayed"] == "true")
        #expect(try await scenario.picked(on: acme)[a1] == 1)
    }

    @Test func theDefaultWindowIsThirtyDaysAndTheMarginMustFitInIt() async throws {
        let folder = try TemporaryDirectory()
        func load(_ extra: String) throws -> ServerConfiguration {
            try ServerConfiguration.load(
                path: try folder.write("server.json", text: #"{"organisations": {}\#(extra)}"#))
        }
        let defaults = try load("")
        #expect(defaults.idempotencyRetentionDays == 30)
        #expect(defaults.idempotencyMarginHours == 24)
        #expect(try load(#", "idempotencyRetentionDays": 1"#).idempotencyMarginHours == 23)
        #expect(throws: (any Error).self) {
            try load(#", "idempotencyRetentionDays": 1, "idempotencyMarginHours": 24"#)
        }
    }
}
