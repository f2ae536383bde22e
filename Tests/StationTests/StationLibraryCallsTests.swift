import ConfigFile
import Foundation
import Queue
import TestSupport
import Testing

@testable import Station
@testable import scanpick

/// What the station commands call, run in-process: opening a batch (online, then offline from the
/// cache) and a tap on any task.
@Suite struct StationLibraryCallsTests {
    @Test func aBatchOpensFromTheServerThenFromTheCacheWhenTheServerIsGone() async throws {
        let fixture = try await StationFixture(openBatch: false)
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        guard case .fetched(let batch) = try await station.openBatch(fixture.scenario.batchId, org: "acme") else {
            Issue.record("the server was there: the batch should have been fetched")
            return
        }
        #expect(batch.tasks.map(\.id).sorted() == fixture.scenario.tasks.sorted())
        #expect(try station.cache.openBatch()?.batchId == fixture.scenario.batchId)

        let server = fixture.server
        _ = try await server.stop()
        guard case .reopenedFromCache = try await station.openBatch(fixture.scenario.batchId, org: "acme") else {
            Issue.record("the server was gone: the batch should have come from the cache")
            return
        }
        await #expect(throws: BatchOpeningError.self) { try await station.openBatch("batch-never-seen", org: "acme") }
        await #expect(throws: ConfigError.self) { try await station.openBatch(fixture.scenario.batchId, org: "nope") }
    }

    @Test func aTapOnTheOpenBatchChangesItsRowAndOneOnAnyOtherTaskIsQueuedAsItIs() async throws {
        let fixture = try await StationFixture()
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let task = fixture.scenario.tasks[0]
        let picked = try station.taps.record(.pick(qty: 2), task: task, org: "acme")
        #expect(try station.cache.tasks().first { $0.id == task }?.qtyPicked == 2)
        #expect(try station.queue.action(picked)?.pickTaskId == task)

        #expect(throws: TapRefusal.notInBatch("task-elsewhere")) {
            try station.taps.record(.setQty(from: 0, to: 1), task: "task-elsewhere", org: "acme")
        }
        let elsewhere = try station.taps.record(
            .setQty(from: 0, to: 1), task: "task-elsewhere", org: "acme", outsideBatch: true)
        #expect(try station.queue.action(elsewhere)?.pickTaskId == "task-elsewhere")
        #expect(try station.cache.tasks().allSatisfy { $0.id != "task-elsewhere" })

        #expect(throws: TapRefusal.self) { try station.taps.record(.pick(qty: 0), task: task, org: "acme") }
        #expect(throws: TapRefusal.self) { try station.taps.record(.setQty(from: -1, to: 1), task: task, org: "acme") }
        #expect(throws: ConfigError.self) { try station.taps.record(.pick(qty: 1), task: task, org: "nope") }
        #expect(try station.queue.counts().pending == 2)
    }
}
