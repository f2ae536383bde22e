import Foundation
import Lifecycle
import Logging
import Queue
import Wire

/// The station and its server: refreshing the pick list, probing, and the drain loop that keeps both
/// in step.
extension PickStation {
    /// Refreshes the open batch from the server: the server's view replaces the cached rows, except
    /// rows with an action not yet confirmed sent, which keep their local counts until it is (a
    /// refresh must never erase taps it has not seen). Returns false when no
    /// batch is open; throws when the server cannot be reached.
    @discardableResult
    public func refreshPickList() async throws -> Bool {
        guard let open = try await blocking({ [cache] in try cache.openBatch() }) else { return false }
        try await fetchIntoCache(open.batchId, org: open.org, opening: false)
        return true
    }

    /// Fetches batch `id` of `org` from the server and stores it (rows with unsent actions keep their
    /// local counts): the one way a batch gets from the server into the cache. `opening` makes it the
    /// open batch; a refresh (`opening: false`) leaves the open batch alone, since the picker may have
    /// opened another while it was on its way.
    @discardableResult
    func fetchIntoCache(_ id: String, org: String, opening: Bool) async throws -> Batch {
        let asked = Date()
        let batch = try await transport.fetchBatch(id, org: org)
        try await blocking { [cache] in
            if opening {
                try cache.store(batch, org: org, fetchedAt: asked)
            } else {
                try cache.refresh(batch, org: org, fetchedAt: asked)
            }
        }
        return batch
    }

    /// Runs `work` (SQLite: the queue, the cache) on the blocking executor, off the task pool.
    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingExecutor.shared.run(work)
    }

    /// Probes the server once (GET /health/ready) with a short timeout.
    public func probe() async -> ServerProbe {
        await transport.probe(timeout: min(2, configuration.queue.requestTimeout))
    }

    /// The long-running drain loop with its network monitor; failed passes are logged and shown
    /// on `attention`; `heartbeat` hears whether a pass is turning (``SyncService``), and
    /// `probeHeartbeat` whether the network monitor's probe is (``NetworkMonitor``).
    public func syncService(
        attention: AttentionBoard = AttentionBoard(), logger: Logger = .discarding,
        onPass: @escaping @Sendable (DrainPass) -> Void = { _ in },
        onPassDuration: @escaping @Sendable (Duration) -> Void = { _ in },
        heartbeat: @escaping @Sendable (_ busy: Bool) -> Void = { _ in },
        probeHeartbeat: @escaping @Sendable (_ probing: Bool) -> Void = { _ in }
    ) -> SyncService {
        let transport = self.transport
        let timeout = min(2, configuration.queue.requestTimeout)
        let monitor = NetworkMonitor(interval: 5, heartbeat: probeHeartbeat) {
            await transport.probe(timeout: timeout)
        }
        let station = self
        return SyncService(
            drainer: drainer, monitor: monitor, options: configuration.queue, attention: attention, logger: logger,
            onPass: onPass, onPassDuration: onPassDuration, afterPass: { try await station.refreshPickList() },
            heartbeat: heartbeat)
    }
}
