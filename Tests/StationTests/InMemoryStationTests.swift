import Foundation
import Queue
import Station
import TestSupport
import Testing
import Wire

/// The station's own behaviour with its server in memory (no process): opening a batch, taps that
/// reach the server once, a refresh that never erases a tap it has not seen, and offline reopening.
/// The same against a real `scanpick serve` is in `RefreshAndTapTests` and `BatchEndTests`.
@Suite struct InMemoryStationTests {
    let folder: TemporaryDirectory
    let api = InMemoryAPI(tokens: ["acme": "demo-acme-token"])
    let station: PickStation

    init() throws {
        folder = try TemporaryDirectory("scanpick-station")
        let settings: [String: Any] = [
            "station": "memory-1", "worker": "worker-test", "server": "http://in-memory.invalid",
            "database": folder.file("station.sqlite"),
            "organisations": ["acme": ["token": "demo-acme-token", "scanning": ["enabled": true]]],
        ]
        let config = try folder.writePrivate(
            "station.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: settings)))
        station = try PickStation(configuration: try StationConfiguration.load(path: config), client: api)
        api.add(
            Batch(
                id: "batch-1",
                tasks: ["t1", "t2"].enumerated().map { index, id in
                    PickTask(
                        id: id, batchId: "batch-1", orderId: "o", lineId: id, sku: "SKU-\(index)",
                        location: "A\(index + 1)", barcode: "036000291452", qtyRequired: 3, qtyPicked: 0, qtyLocked: 0)
                }), org: "acme")
    }

    func cached(_ task: String) throws -> Int? { try station.cache.tasks().first { $0.id == task }?.qtyPicked }

    @Test func aTapReachesTheServerOnceAndARefreshNeverErasesOneNotYetSent() async throws {
        guard case .fetched = try await station.openBatch("batch-1", org: "acme") else {
            Issue.record("not fetched")
            return
        }
        _ = try station.taps.pick("t1", qty: 2)
        #expect(try cached("t1") == 2)
        // The server has not seen the tap: its view (0) does not replace the row's local count.
        #expect(try await station.refreshPickList())
        #expect(try cached("t1") == 2)
        #expect(try await station.drainer.drainPass().sent == 1)
        #expect(api.batch("batch-1")?.tasks.first?.qtyPicked == 2)
        #expect(try await station.refreshPickList())
        #expect(try cached("t1") == 2)
        #expect(try await station.drainer.drainPass().sent == 0)
        #expect(api.delivered.count == 1)
    }

    /// Offline, a batch opened before reopens from the cache; one never opened here says so.
    @Test func offlineABatchOpenedBeforeReopensFromTheCache() async throws {
        _ = try await station.openBatch("batch-1", org: "acme")
        api.reachable = false
        guard case .reopenedFromCache = try await station.openBatch("batch-1", org: "acme") else {
            Issue.record("not reopened from the cache")
            return
        }
        await #expect(throws: BatchOpeningError.self) { try await station.openBatch("batch-2", org: "acme") }
        _ = try station.taps.pick("t2", qty: 1)  // taps work offline, queued
        #expect(try await station.drainer.drainPass(honouringBackoff: false).sent == 0)
        api.reachable = true
        #expect(try await station.drainer.drainPass(honouringBackoff: false).sent == 1)
        #expect(api.batch("batch-1")?.tasks.last?.qtyPicked == 1)
    }

    /// A reload's new server and tokens reach the client the station was given.
    @Test func aReloadedServerAndTokensReachTheClient() throws {
        var changed = station.configuration
        changed.server = URL(string: "http://elsewhere.invalid:8080")!
        station.apply(changed)
        #expect(api.server.absoluteString == "http://elsewhere.invalid:8080")
    }
}
