import Foundation
import Synchronization

/// Keeps the queue draining while the station runs. A pass starts on:
///
/// - the network monitor's online edge;
/// - the periodic timer (`drainInterval`);
/// - a new enqueue while online (`poke()`), including enqueues by other processes, which SQLite's
///   `data_version` reveals;
/// - the moment the head of the line's backoff ends.
///
/// Passes never overlap: one loop runs them.
///
///     let sync = SyncService(drainer: drainer, monitor: monitor, options: options)
///     sync.start()
///     sync.poke()  // after an enqueue
public final class SyncService: Sendable {
    public let drainer: Drainer
    public let monitor: NetworkMonitor
    private let options: QueueOptions
    private let onPass: @Sendable (DrainPass) -> Void
    private let afterPass: (@Sendable () async -> Void)?
    private let state = Mutex(State())

    private struct State {
        var wake: CheckedContinuation<Void, Never>?
        var poked = false
        var loop: Task<Void, Never>?
        var watcher: Task<Void, Never>?
        var stopped = false
    }

    public init(
        drainer: Drainer, monitor: NetworkMonitor, options: QueueOptions,
        onPass: @escaping @Sendable (DrainPass) -> Void = { _ in }, afterPass: (@Sendable () async -> Void)? = nil
    ) {
        self.drainer = drainer
        self.monitor = monitor
        self.options = options
        self.onPass = onPass
        self.afterPass = afterPass
    }

    /// Whether the server answered the last probe.
    public var isOnline: Bool { monitor.isOnline ?? false }

    public func start() {
        monitor.start { [weak self] online in if online { self?.poke() } }
        let loop = Task { [weak self] in _ = await self?.run() }
        let watcher = Task { [weak self] in _ = await self?.watchOtherProcesses() }
        state.withLock {
            $0.loop = loop
            $0.watcher = watcher
        }
    }

    /// Asks for a pass as soon as possible (after an enqueue, or when the network came back).
    public func poke() {
        let wake = state.withLock { state in
            state.poked = true
            defer { state.wake = nil }
            return state.wake
        }
        wake?.resume()
    }

    /// Stops the loop after the pass in progress (not cancelled: see ``NetworkMonitor/stop()``), and
    /// the monitor.
    public func stop() async {
        let (loop, watcher) = state.withLock { state in
            state.stopped = true
            return (state.loop, state.watcher)
        }
        await monitor.stop()
        watcher?.cancel()  // it only sleeps and reads SQLite
        poke()
        await loop?.value
        await watcher?.value
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() async {
        var nextWake = Date()
        while !isStopped {
            await waitUntil(nextWake)
            if isStopped { break }
            nextWake = Date().addingTimeInterval(options.drainInterval)
            guard monitor.isOnline == true else { continue }
            guard let pass = try? await drainer.drainPass() else { continue }
            onPass(pass)
            switch pass.stop {
            case .notDue(let until): nextWake = min(nextWake, until)
            case .transient(_, let retryAt):
                nextWake = min(nextWake, retryAt)
                monitor.probeNow()  // the server may be gone: let the pill know soon
            case .anotherDrainer: nextWake = min(nextWake, Date().addingTimeInterval(1))
            case .empty: break
            }
            _ = try? drainer.queue.pruneSent(olderThan: options.sentRetention)
            await afterPass?()  // e.g. the station refreshes its pick list while online
        }
    }

    /// Sleeps until `date`, or until poked.
    private func waitUntil(_ date: Date) async {
        let already = state.withLock { state in
            defer { state.poked = false }
            return state.poked
        }
        if already { return }
        let delay = date.timeIntervalSinceNow
        guard delay > 0 else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.poked {
                    state.poked = false
                    return true
                }
                state.wake = continuation
                return false
            }
            if resumeNow {
                continuation.resume()
                return
            }
            Task {
                try? await Task.sleep(for: .seconds(delay))
                let wake = self.state.withLock { state in
                    defer { state.wake = nil }
                    return state.wake
                }
                wake?.resume()
            }
        }
        state.withLock { $0.poked = false }
    }

    /// Other `scanpick` processes (a `scanpick tap` at a shell) enqueue through their own
    /// connection: SQLite's data_version changes when they commit.
    private func watchOtherProcesses() async {
        var last = (try? drainer.queue.dataVersion()) ?? 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            guard let version = try? drainer.queue.dataVersion(), version != last else { continue }
            last = version
            if monitor.isOnline == true { poke() }
        }
    }
}
