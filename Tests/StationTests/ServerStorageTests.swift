import Foundation
import TestSupport
import Testing

/// A server whose disk is full once looked healthy to the station ("online · 582 pending", nothing in
/// attention). The station now says the server cannot store its actions, keeps them, and sends them
/// once the server can store again.
@Suite struct ServerStorageTests {
    @Test(.enabled(if: SmallFilesystem.canMount, "mounting a small filesystem needs root"))
    func aServerWithAFullDiskIsNamedInAttentionAndTheQueueWaits() async throws {
        let disk = try SmallFilesystem()
        let fixture = try await StationFixture(
            stationConfig: ["queue": ["backoffInitialSeconds": 1, "backoffCapSeconds": 1]],
            serverDatabase: disk.file("server.sqlite"))
        let a1 = fixture.scenario.tasks[0]
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)

        try disk.fill()
        // Big enough that no page the server's -wal already holds can take it.
        let lines = (0..<10).map { line in
            ["id": "l\(line)", "sku": "S\(line)", "location": "R-\(line)", "barcode": "4006381333931", "qty": 2]
        }
        let many = (0..<400).map {
            ["id": "fill-\($0)", "carrier": "BULK", "zone": "Z", "shipBy": "2026-12-09", "lines": lines]
        }
        let orders = try await fixture.acme.post("/api/orders", json: ["orders": many])
        #expect(orders.errorCode == "storage_full", "\(orders.text)")

        #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1]).status == 200)
        var message = ""
        let said = await eventually {
            let status = (try? await page.get("/api/status").json) ?? [:]
            let attention = status["attention"] as? [[String: Any]] ?? []
            message = attention.first { $0["code"] as? String == "server_storage_full" }?["message"] as? String ?? ""
            return !message.isEmpty
        }
        #expect(said)
        #expect(message.hasPrefix("the server cannot store actions (disk full)"), "\(message)")
        #expect(try await page.get("/api/status").json["dead"] as? Int == 0)

        try disk.free()
        let drained = await eventually {
            let status = (try? await page.get("/api/status").json) ?? [:]
            let attention = status["attention"] as? [[String: Any]] ?? []
            return status["pending"] as? Int == 0
                && !attention.contains { $0["code"] as? String == "server_storage_full" }
        }
        #expect(drained)
        #expect(try await fixture.scenario.picked(on: fixture.acme)[a1] == 1)
        _ = await station.stop()
        try await fixture.server.stop()
        withExtendedLifetime(disk) {}  // unmounted once the server is stopped
    }
}
