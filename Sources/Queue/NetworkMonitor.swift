import Foundation
import Synchronization

/// Tells whether the ScanPick server is reachable (and whether its database is ready), and reports
/// the online/offline edges: a cheap probe with a short timeout, run on a timer and at once whenever
/// rtnetlink says the network changed.
///
///     let monitor = NetworkMonitor(probe: { await transport.probe(timeout: 2) })
///     monitor.start { online in if online { drainNow() } }
public final class NetworkMonitor: Sendable {
    private let probe: @Sendable () async -> ServerProbe
    private let interval: TimeInterval
    private let heartbeat: @Sendable (_ probing: Bool) -> Void
    private let state = Mutex(State())
    private let alarm = Alarm()

    private struct State {
        var online: Bool?
        var databaseReady: Bool?
        var task: Task<Void, Never>?
        var watcher: NetlinkWatcher?
        var lastProbeAt: Date?
        var stopped = false
    }

    /// `probe` looks at the server; it runs every `interval` seconds. `heartbeat` hears `true` as a
    /// probe starts and `false` when it ends (for a watchdog: a probe that never ends is wedged).
    public init(
        interval: TimeInterval = 5, heartbeat: @escaping @Sendable (_ probing: Bool) -> Void = { _ in },
        probe: @escaping @Sendable () async -> ServerProbe
    ) {
        self.interval = interval
        self.heartbeat = heartbeat
        self.probe = probe
    }

    /// A monitor whose probe only says whether the server is reachable.
    public convenience init(interval: TimeInterval = 5, reachable: @escaping @Sendable () async -> Bool) {
        self.init(interval: interval) { ServerProbe(reachable: await reachable(), databaseReady: nil) }
    }

    /// The last probe's answer (nil before the first).
    public var isOnline: Bool? { state.withLock { $0.online } }

    /// Whether the server said its database answers (nil before the first probe, or when it did not say).
    public var isDatabaseReady: Bool? { state.withLock { $0.databaseReady } }

    /// Probes now, then on the timer and on network changes; `onEdge` hears each change of state
    /// (the first probe's answer counts as one).
    public func start(onEdge: @escaping @Sendable (Bool) -> Void) {
        let watcher = NetlinkWatcher { [weak self] in self?.probeNow() }
        let task = Task { [weak self] in
            while let self, !self.state.withLock({ $0.stopped }) {
                self.heartbeat(true)
                let found = await self.probe()
                self.heartbeat(false)
                let online = found.reachable
                let changed = self.state.withLock { state -> Bool in
                    state.lastProbeAt = Date()
                    state.databaseReady = found.databaseReady
                    defer { state.online = online }
                    return state.online != online
                }
                if changed { onEdge(online) }
                await self.sleep()
            }
        }
        state.withLock {
            $0.task = task
            $0.watcher = watcher
        }
    }

    /// Cuts the current wait short: probe at once (a network change, or a failed send).
    public func probeNow() { alarm.ring() }

    /// Stops probing and waits for a probe in flight to finish (it has a short timeout), so the process
    /// can exit with nothing of URLSession's still at work. The task is not cancelled: cancelling a task
    /// inside URLSession's `data(for:)` while the request completes deadlocks on Linux (seen here:
    /// swift_task_cancel and URLSession's completion each wait for the other's lock).
    public func stop() async {
        let (task, watcher) = state.withLock { state in
            state.stopped = true
            return (state.task, state.watcher)
        }
        watcher?.stop()
        probeNow()
        await task?.value
    }

    /// Waits for the interval or an early wake-up, whichever comes first.
    private func sleep() async { await alarm.sleep(for: interval) }
}
