import Foundation
import Queue
import Synchronization

/// The queue-side parts of a station built from its configuration in one place: the queue
/// database, the HTTP transport, the drainer, the network monitor and the sync service. A corrected
/// configuration can be applied while it runs (``apply(_:)``).
///
///     let parts = try StationQueue(configuration: config)
///     try parts.queue.enqueue(.pick(...))
public struct StationQueue: Sendable {
    private let live: LiveConfiguration
    public let queue: ActionQueue
    /// The pick list of the open batch, in the same database as the queue.
    public let cache: PickListCache
    public let transport: HTTPActionTransport
    public let drainer: Drainer

    public init(configuration: StationConfiguration) throws {
        live = LiveConfiguration(configuration)
        queue = try ActionQueue(path: configuration.databasePath, extraMigrations: PickListCache.migrations)
        cache = PickListCache(queue: queue)
        transport = HTTPActionTransport(
            server: configuration.server, tokens: configuration.tokens, timeout: configuration.queue.requestTimeout)
        drainer = Drainer(
            queue: queue, transport: transport,
            backoff: BackoffPolicy(initial: configuration.queue.backoffInitial, cap: configuration.queue.backoffCap))
    }

    /// The configuration in force (it changes when a corrected one is applied).
    public var configuration: StationConfiguration { live.current }

    /// Takes a re-read configuration: the server, the tokens, the worker and each organisation's
    /// scanning settings apply at once, and a paused queue looks again. Returns the keys whose
    /// change needs a restart (the database, the queue's timings, the page's address and access,
    /// the camera, debounce), which keep their running values.
    @discardableResult
    public func apply(_ new: StationConfiguration) -> [String] {
        let old = live.current
        var merged = new
        var restart: [String] = []
        func keep<T: Equatable>(_ key: String, _ path: WritableKeyPath<StationConfiguration, T>) {
            if new[keyPath: path] != old[keyPath: path] { restart.append(key) }
            merged[keyPath: path] = old[keyPath: path]
        }
        keep("database", \.databasePath)
        keep("queue", \.queue)
        keep("page", \.page)
        keep("camera", \.camera)
        keep("debounce", \.debounce)
        live.replace(merged)
        transport.update(server: merged.server, tokens: merged.tokens)
        return restart
    }

    /// Probes the server once (GET /health/ready) with a short timeout.
    public func probe() async -> ServerProbe {
        await transport.probe(timeout: min(2, configuration.queue.requestTimeout))
    }

    /// The long-running drain loop with its network monitor; failed passes are logged and shown
    /// on `attention`.
    public func syncService(
        attention: AttentionBoard = AttentionBoard(), log: @escaping @Sendable (String) -> Void = { _ in },
        onPass: @escaping @Sendable (DrainPass) -> Void = { _ in }
    ) -> SyncService {
        let transport = self.transport
        let timeout = min(2, configuration.queue.requestTimeout)
        let monitor = NetworkMonitor(interval: 5) { await transport.probe(timeout: timeout) }
        let station = self
        return SyncService(
            drainer: drainer, monitor: monitor, options: configuration.queue, attention: attention, log: log,
            onPass: onPass, afterPass: { try await station.refreshPickList() })
    }
}

/// The configuration in force, shared by every copy of a ``StationQueue``.
private final class LiveConfiguration: Sendable {
    private let value: Mutex<StationConfiguration>
    init(_ configuration: StationConfiguration) { value = Mutex(configuration) }
    var current: StationConfiguration { value.withLock { $0 } }
    func replace(_ configuration: StationConfiguration) { value.withLock { $0 = configuration } }
}
