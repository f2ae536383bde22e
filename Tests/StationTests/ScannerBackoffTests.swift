import Foundation
import Lifecycle
import Logging
import TestSupport
import Testing

@testable import Station

/// A handheld scanner that is not there is looked for again after a pause; the pause ends at once
/// when the scanner's service stops or scanning goes off, woken by them rather than looking every
/// tenth of a second.
@Suite(.timeLimit(.minutes(1))) struct ScannerBackoffTests {
    let folder: TemporaryDirectory
    let runtime: StationRuntime

    init() throws {
        folder = try TemporaryDirectory("scanpick-backoff")
        let config = try Self.config(in: folder, scanning: true)
        let station = try PickStation(
            configuration: try StationConfiguration.load(path: config),
            client: InMemoryAPI(tokens: ["acme": "demo-acme-token"]))
        runtime = StationRuntime(configPath: config, station: station, output: { _ in }, logger: .discarding)
    }

    static func config(in folder: TemporaryDirectory, scanning: Bool) throws -> String {
        let settings: [String: Any] = [
            "station": "memory-1", "worker": "worker-test", "server": "http://in-memory.invalid",
            "database": folder.file("station.sqlite"),
            "organisations": ["acme": ["token": "demo-acme-token", "scanning": ["enabled": scanning]]],
        ]
        return try folder.writePrivate(
            "station-\(scanning).json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: settings)))
    }

    /// Starts a long pause of `scanner-1` and waits (bounded) until it can be woken; the task gives
    /// the instant the pause ended.
    func pausing() async throws -> Task<ContinuousClock.Instant, Never> {
        runtime.applyScanning(runtime.station.configuration)
        #expect(runtime.isScanningOn)
        let runtime = runtime
        let pause = Task {  // on a thread of its own: a blocked pool thread would starve the test's tasks
            await BlockingExecutor.runOnOwnThread(named: "pause-test") {
                runtime.pause(seconds: 600, "scanner-1")
                return ContinuousClock.now
            }
        }
        let deadline = ContinuousClock.now + .seconds(90)  // a loaded suite may start the thread late
        while runtime.state.withLock({ $0.openSources["scanner-1"] == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))  // a spinning task would take a core from the suite
        }
        try #require(runtime.state.withLock { $0.openSources["scanner-1"] != nil }, "the pause cannot be woken")
        return pause
    }

    @Test func theScannersStopEndsItsPauseAtOnce() async throws {
        let pause = try await pausing()
        let stopped = ContinuousClock.now  // measured from here: the test's own task may wait for the pool
        runtime.stopSource("scanner-1")
        #expect(await pause.value - stopped < .seconds(5))
        #expect(runtime.state.withLock { $0.openSources["scanner-1"] == nil })
        runtime.pause(seconds: 600, "scanner-1")  // a stopped reader does not pause at all
    }

    @Test func scanningSwitchedOffEndsThePauseAtOnce() async throws {
        let pause = try await pausing()
        let off = try StationConfiguration.load(path: try Self.config(in: folder, scanning: false))
        let switched = ContinuousClock.now
        runtime.applyScanning(off)
        #expect(!runtime.isScanningOn)
        #expect(await pause.value - switched < .seconds(5))
        runtime.pause(seconds: 600, "scanner-1")  // scanning off: no pause either
    }
}
