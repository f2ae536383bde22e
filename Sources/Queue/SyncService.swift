import Foundation
import JSONText
import Synchronization
import Timestamps
import Wire

/// Keeps the queue draining while the station runs. A pass starts on:
///
/// - the network monitor's online edge;
/// - the periodic timer (`drainInterval`);
/// - a new enqueue while online (`poke()`), including enqueues by other processes, which SQLite's
///   `data_version` reveals;
/// - the moment the head of the line's backoff ends.
///
/// Passes never overlap: one loop runs them. Nothing fails silently: a pass, a prune or a refresh
/// that fails is logged (one JSON line) and shown on the ``AttentionBoard`` until one succeeds.
///
///     let sync = SyncService(drainer: drainer, monitor: monitor, options: options)
///     sync.start()
///     sync.poke()  // after an enqueue
public final class SyncService: Sendable {
    public let drainer: Drainer
    public let monitor: NetworkMonitor
    private let options: QueueOptions
    private let attention: AttentionBoard
    private let log: @Sendable (String) -> Void
    private let onPass: @Sendable (DrainPass) -> Void
    private let onPassDuration: @Sendable (Duration) -> Void
    private let afterPass: (@Sendable () async throws -> Void)?
    private let heartbeat: @Sendable (_ busy: Bool) -> Void
    private let state = Mutex(State())

    private let alarm = Alarm()

    private struct State {
        var loop: Task<Void, Never>?
        var watcher: Task<Void, Never>?
        var stopped = false
        /// The server answered a probe after it had not (or for the first time): the next pass
        /// tries the pending actions at once, whatever backoff the outage left on them.
        var reachedAgain = false
    }

    /// `afterPass` runs after each pass while online (the station refreshes its pick list); a
    /// failure of it other than the server being unreachable is logged and shown too. `heartbeat`
    /// hears `true` as a pass starts and after each action it delivers, and `false` when the loop
    /// goes back to waiting (for a watchdog: a pass that stops turning is wedged). `onPassDuration`
    /// hears how long each pass took, failed ones included (for the station's metrics).
    public init(
        drainer: Drainer, monitor: NetworkMonitor, options: QueueOptions, attention: AttentionBoard = AttentionBoard(),
        log: @escaping @Sendable (String) -> Void = { _ in },
        onPass: @escaping @Sendable (DrainPass) -> Void = { _ in },
        onPassDuration: @escaping @Sendable (Duration) -> Void = { _ in },
        afterPass: (@Sendable () async throws -> Void)? = nil,
        heartbeat: @escaping @Sendable (_ busy: Bool) -> Void = { _ in }
    ) {
        self.onPassDuration = onPassDuration
        self.drainer = drainer
        self.monitor = monitor
        self.options = options
        self.attention = attention
        self.log = log
        self.onPass = onPass
        self.afterPass = afterPass
        self.heartbeat = heartbeat
    }

    /// Whether the server answered the last probe.
    public var isOnline: Bool { monitor.isOnline ?? false }

    /// Whether the server said its database answers, at the last probe (nil when unknown).
    public var isServerReady: Bool? { monitor.isDatabaseReady }

    public func start() {
        monitor.start { [weak self] online in if online { self?.serverReachedAgain() } }
        let loop = Task { [weak self] in _ = await self?.run() }
        let watcher = Task { [weak self] in _ = await self?.watchOtherProcesses() }
        state.withLock {
            $0.loop = loop
            $0.watcher = watcher
        }
    }

    /// Asks for a pass as soon as possible (after an enqueue, or when the network came back).
    public func poke() { alarm.ring() }

    /// The backoff after a failed send spares a server that cannot be reached; once one has just
    /// answered a probe, waiting out the rest of it (up to `backoffCapSeconds`) would only keep a
    /// picker's scans pending. A pause (a wrong token) is tried again too: one answer tells.
    private func serverReachedAgain() {
        state.withLock { $0.reachedAgain = true }
        poke()
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
            heartbeat(false)
            await waitUntil(nextWake)
            if isStopped { break }
            heartbeat(true)
            nextWake = Date().addingTimeInterval(options.drainInterval)
            guard monitor.isOnline == true else { continue }
            let afterOutage = state.withLock { state in
                defer { state.reachedAgain = false }
                return state.reachedAgain
            }
            let pass: DrainPass
            do {
                pass = try await timedPass(honouringBackoff: !afterOutage)
                attention.set("sync", nil)
            } catch QueueError.drainLock(let path, let reason) {
                let problem = QueueError.drainLock(path, reason)
                report("sync", "drain_lock", "\(problem)", problem)
                nextWake = min(nextWake, Date().addingTimeInterval(options.backoffCap))
                continue
            } catch {
                // The queue database failed (a damaged page, a full disk): say so, and try again soon.
                report("sync", "sync_failed", "a sync pass failed: \(error); the queue is kept and tried again", error)
                nextWake = min(nextWake, Date().addingTimeInterval(options.backoffCap))
                continue
            }
            onPass(pass)
            switch pass.stop {
            case .notDue(let until): nextWake = min(nextWake, until)
            case .transient(_, let retryAt):
                nextWake = min(nextWake, retryAt)
                monitor.probeNow()  // the server may be gone: let the pill know soon
            case .anotherDrainer: nextWake = min(nextWake, Date().addingTimeInterval(1))
            case .paused(_, let retryAt): nextWake = min(nextWake, retryAt)
            case .empty: break
            }
            do {
                try drainer.queue.pruneSent(olderThan: options.sentRetention)
                attention.set("prune", nil)
            } catch {
                report("prune", "prune_failed", "removing old sent actions failed: \(error)", error)
            }
            guard let afterPass else { continue }
            do {
                try await afterPass()  // e.g. the station refreshes its pick list while online
                attention.set("refresh", nil)
            } catch let error as FetchError {
                if case .unreachable = error { continue }  // the dead spot: the pill already says offline
                report("refresh", "refresh_failed", "refreshing the pick list failed: \(error)", error)
            } catch {
                report("refresh", "refresh_failed", "refreshing the pick list failed: \(error)", error)
            }
        }
    }

    /// One drain pass, its duration told to `onPassDuration` however it ends.
    private func timedPass(honouringBackoff: Bool) async throws -> DrainPass {
        let started = ContinuousClock.now
        defer { onPassDuration(ContinuousClock.now - started) }
        return try await drainer.drainPass(
            honouringBackoff: honouringBackoff, onEvent: { [heartbeat] _ in heartbeat(true) })
    }

    /// Logs a failure as one JSON line and shows it as needing attention.
    private func report(_ source: String, _ code: String, _ message: String, _ error: any Error) {
        var line = JSONObjectWriter()
        line.add("time", time: Date())
        line.add("event", string: code)
        line.add("error", string: String(describing: error))
        log(line.finished())
        attention.set(source, Attention(code: code, message: message))
    }

    /// Sleeps until `date`, or until poked.
    private func waitUntil(_ date: Date) async { await alarm.sleep(for: date.timeIntervalSinceNow) }

    /// Other `scanpick` processes (a `scanpick tap` at a shell) enqueue through their own
    /// connection: SQLite's data_version changes when they commit.
    /// A queue that cannot be read is reported once (logged, and shown as needing attention) and
    /// cleared once it reads again; the watch goes on either way.
    private func watchOtherProcesses() async {
        var last: Int?
        var failing = false
        while !Task.isCancelled {
            let version: Int
            do {
                version = try drainer.queue.dataVersion()
                if failing { attention.set("watch", nil) }
                failing = false
            } catch {
                if !failing {
                    report(
                        "watch", "queue_unreadable",
                        "the queue cannot be read to notice other processes' actions: \(error)", error)
                }
                failing = true
                await Self.pause()
                continue
            }
            if let last, version != last, monitor.isOnline == true { poke() }
            last = version
            await Self.pause()
        }
    }

    /// How often the watch looks at the queue's data version (a cancelled sleep ends the watch).
    private static func pause() async { try? await Task.sleep(for: .milliseconds(500)) }
}
