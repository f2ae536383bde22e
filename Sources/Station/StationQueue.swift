import Foundation
import Queue

/// The queue-side parts of a station built from its configuration in one place: the queue
/// database, the HTTP transport, the drainer, the network monitor and the sync service.
///
///     let parts = try StationQueue(configuration: config)
///     try parts.queue.enqueue(.pick(...))
public struct StationQueue: Sendable {
    public let configuration: StationConfiguration
    public let queue: ActionQueue
    /// The pick list of the open batch, in the same database as the queue.
    public let cache: PickListCache
    public let transport: HTTPActionTransport
    public let drainer: Drainer

    public init(configuration: StationConfiguration) throws {
        self.configuration = configuration
        queue = try ActionQueue(path: configuration.databasePath, extraMigrations: PickListCache.migrations)
        cache = PickListCache(queue: queue)
        transport = HTTPActionTransport(
            server: configuration.server, tokens: configuration.tokens, timeout: configuration.queue.requestTimeout)
        drainer = Drainer(
            queue: queue, transport: transport,
            backoff: BackoffPolicy(initial: configuration.queue.backoffInitial, cap: configuration.queue.backoffCap))
    }

    /// Probes the server once (GET /health) with a short timeout.
    public func probe() async -> Bool {
        await transport.isReachable(timeout: min(2, configuration.queue.requestTimeout))
    }

    /// The long-running drain loop with its network monitor.
    public func syncService(onPass: @escaping @Sendable (DrainPass) -> Void = { _ in }) -> SyncService {
        let transport = self.transport
        let timeout = min(2, configuration.queue.requestTimeout)
        let monitor = NetworkMonitor(interval: 5) { await transport.isReachable(timeout: timeout) }
        let station = self
        return SyncService(
            drainer: drainer, monitor: monitor, options: configuration.queue, onPass: onPass,
            afterPass: { _ = try? await station.refreshPickList() })
    }
}
