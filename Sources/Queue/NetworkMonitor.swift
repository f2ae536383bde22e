import Foundation
import Lifecycle
import Synchronization
import Waking

/// Tells whether the ScanPick server is reachable (and whether its database is ready), and reports
/// the online/offline edges: a cheap probe with a short timeout, run on a timer and at once whenever
/// rtnetlink says the network changed. A service: it probes from its start until its task is
/// cancelled, then waits for a probe in flight (it has a short timeout) rather than cancel it, so
/// the process can exit with nothing of URLSession's still at work (see
/// ``withShieldedCancellation(_:onCancel:)``).
///
///     let monitor = NetworkMonitor(probe: { await client.probe(timeout: 2) })
///     monitor.onEdge { online in if online { drainNow() } }
///     let group = ServiceGroup([monitor, sync], logger: logger)
public final class NetworkMonitor: Service {
    public let name = "network-monitor"
    private let probe: @Sendable () async -> ServerProbe
    private let interval: TimeInterval
    private let heartbeat: @Sendable (_ probing: Bool) -> Void
    private let state = Mutex(State())
    private let wake = WakeUp()

    private struct State {
        var online: Bool?
        var databaseReady: Bool?
        var stopped = false
        var observers: [@Sendable (Bool) -> Void] = []
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

    /// `observer` hears each change of state from now on (the first probe's answer counts as one).
    public func onEdge(_ observer: @escaping @Sendable (Bool) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Probes now, then on the timer and on network changes, until cancelled.
    public func run() async {
        await withShieldedCancellation { [self] in
            await probeUntilStopped()
        } onCancel: { [self] in
            state.withLock { $0.stopped = true }
            wake.ring()
        }
    }

    /// Cuts the current wait short: probe at once (a network change, or a failed send).
    public func probeNow() { wake.ring() }

    private func probeUntilStopped() async {
        let watcher = NetlinkWatcher { [weak self] in self?.probeNow() }
        let watching = Task {
            await BlockingExecutor.runOnOwnThread(named: "netlink") { watcher?.watchUntilStopped() }
        }
        while !state.withLock({ $0.stopped }) {
            heartbeat(true)
            let found = await probe()
            heartbeat(false)
            let online = found.reachable
            let observers = state.withLock { state -> [@Sendable (Bool) -> Void] in
                state.databaseReady = found.databaseReady
                defer { state.online = online }
                return state.online != online ? state.observers : []
            }
            for observer in observers { observer(online) }
            await wake.sleep(for: .seconds(interval))
        }
        watcher?.stop()  // its thread sees it within half a second
        await watching.value
    }
}
