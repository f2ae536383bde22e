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
