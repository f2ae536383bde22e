import Foundation
import Queue
import ScanPickClient
import Synchronization
import TestSupport

/// A clock tests move by hand, so backoff schedules are checked without sleeping.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A real server (SQLite or PostgreSQL) with a batch open, a fault proxy in front of it, and a station
/// queue database.
struct QueueFixture {
    let server: ServerProcess
    let proxy: FaultProxy
    let acme: APIClient
    let scenario: PickingScenario
    let folder: TemporaryDirectory
    let queue: ActionQueue
    let clock = TestClock()

    static let token = ServerProcess.tokens["acme"] ?? ""

    /// `serverConfig` is merged into the server's config (e.g. a short idempotency window).
    init(store: ServerStoreKind = .sqlite, bulkQty: Int? = nil, serverConfig: [String: Any] = [:]) async throws {
        server = try await ServerProcess(store: store, extraConfig: serverConfig)
        proxy = try FaultProxy(upstream: server.baseURL)
        acme = APIClient(server.baseURL, token: Self.token)
        scenario = try await PickingScenario.create(on: acme, bulkQty: bulkQty)
        folder = try TemporaryDirectory("scanpick-station")
        queue = try ActionQueue(path: folder.file("station.sqlite"))
    }

    /// A drainer talking to `url` (the proxy by default), on the test clock, with jitter pinned to
    /// the top of its range unless told otherwise.
    func drainer(to url: URL? = nil, timeout: TimeInterval = 5, unitRandom: Double = 1) -> Drainer {
        let transport = ScanPickHTTPClient(server: url ?? proxy.url, tokens: ["acme": Self.token], timeout: timeout)
        let clock = self.clock
        return Drainer(
            queue: queue, transport: transport, backoff: BackoffPolicy(initial: 2, cap: 60), now: { clock.now },
            unitRandom: { unitRandom })
    }

    func pick(_ task: Int, qty: Int = 1) throws -> Int {
        try queue.enqueue(.pick(org: "acme", pickTaskId: scenario.tasks[task], location: nil, qty: qty, worker: "w"))
    }

    func picked() async throws -> [Int] {
        let byId = try await scenario.picked(on: acme)
        return scenario.tasks.map { byId[$0] ?? -1 }
    }

    /// A station config file pointing at `url`, for tests of the command line.
    func stationConfig(server url: URL, timeout: Double = 5) throws -> String {
        let config: [String: Any] = [
            "station": "test-1", "worker": "worker-test", "server": url.absoluteString,
            "database": folder.file("station.sqlite"),
            "queue": ["backoffInitialSeconds": 2, "backoffCapSeconds": 60, "requestTimeoutSeconds": timeout],
            "organisations": ["acme": ["token": Self.token]],
        ]
        return try folder.writePrivate(
            "station.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: config)))
    }
}
