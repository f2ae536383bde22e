import Foundation
import Lifecycle
import Logging
import Synchronization
import Timestamps
import Waking
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
/// A service, started after its ``NetworkMonitor`` (which it asks whether the server is online):
/// cancelled, it stops after the pass in progress, never in the middle of a request (see
/// ``withShieldedCancellation(_:onCancel:)``). Its SQLite work runs on the blocking executor.
///
///     let sync = SyncService(drainer: drainer, monitor: monitor, options: options)
///     let group = ServiceGroup([monitor, sync], logger: logger)
///     sync.poke()  // after an enqueue
public final class SyncService: Service {
    public let name = "sync"
    public let drainer: Drainer
    public let monitor: NetworkMonitor
    private let options: QueueOptions
    private let attention: AttentionBoard
    private let logger: Logger
    private let onPass: @Sendable (DrainPass) -> Void
    private let onPassDuration: @Sendable (Duration) -> Void
    private let afterPass: (@Sendable () async throws -> Void)?
    private let heartbeat: @Sendable (_ busy: Bool) -> Void
    private let state = Mutex(State())

    private let wake = WakeUp()

    private struct State {
        var stopped = false
        /// The server answered a probe after it had not (or for the first time): the next pass
        /// tries the pending actions at once, whatever backoff the outage left on them.
        var reachedAgain = false
        /// The queue's file was deleted or replaced under the station: no pass runs (every write
        /// would be refused) until the station restarts.
        var databaseGone = false
    }

    /// `afterPass` runs after each pass while online (the station refreshes its pick list); a
    /// failure of it other than the server being unreachable is logged and shown too. `heartbeat`
    /// hears `true` as a pass starts and after each action it delivers, and `false` when the loop
    /// goes back to waiting (for a watchdog: a pass that stops turning is wedged). `onPassDuration`
    /// hears how long each pass took, failed ones included (for the station's metrics).
    public init(
        drainer: Drainer, monitor: NetworkMonitor, options: QueueOptions, attention: AttentionBoard = AttentionBoard(),
        logger: Logger = .discarding,
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
        self.logger = logger
        self.onPass = onPass
        self.afterPass = afterPass
        self.heartbeat = heartbeat
        monitor.onEdge { [weak self] online in if online { self?.serverReachedAgain() } }
    }

    /// Whether the server answered the last probe.
    public var isOnline: Bool { monitor.isOnline ?? false }

    /// Whether the server said its database answers, at the last probe (nil when unknown).
    public var isServerReady: Bool? { monitor.isDatabaseReady }

    /// Drains until cancelled (then after the pass in progress), and watches other processes'
    /// enqueues meanwhile.
    public func run() async {
        await withShieldedCancellation { [self] in
            async let watching: Void = watchOtherProcesses()
            await drainUntilStopped()
            await watching
        } onCancel: { [self] in
            state.withLock { $0.stopped = true }
            poke()
            watchWake.ring()
        }
    }

    /// Asks for a pass as soon as possible (after an enqueue, or when the network came back).
    public func poke() { wake.ring() }

    /// The backoff after a failed send spares a server that cannot be reached; once one has just
    /// answered a probe, waiting out the rest of it (up to `backoffCapSeconds`) would only keep a
    /// picker's scans pending. A pause (a wrong token) is tried again too: one answer tells.
    private func serverReachedAgain() {
        state.withLock { $0.reachedAgain = true }
        poke()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func drainUntilStopped() async {
        var nextWake = Date()
        while !isStopped {
            heartbeat(false)
            await waitUntil(nextWake)
            if isStopped { break }
            heartbeat(true)
            nextWake = Date().addingTimeInterval(options.drainInterval)
            guard monitor.isOnline == true, !state.withLock({ $0.databaseGone }) else { continue }
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
            // A server that answers but cannot store anything (its disk is full) is said as such.
            if case .transient(let reason, _) = pass.stop, let problem = Attention.serverStorage(reason) {
                attention.set("server", problem)
            } else if pass.sent > 0 || pass.stop == .empty {
                attention.set("server", nil)
            }
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
                let (queue, retention) = (drainer.queue, options.sentRetention)
                _ = try await BlockingExecutor.shared.run { try queue.pruneSent(olderThan: retention) }
                attention.set("prune", nil)
            } catch {
                report("prune", "prune_failed", "removing old sent actions failed: \(error)", error, level: .warning)
            }
            guard let afterPass else { continue }
            do {
                try await afterPass()  // e.g. the station refreshes its pick list while online
                attention.set("refresh", nil)
            } catch let error as FetchError {
                if case .unreachable = error { continue }  // the dead spot: the pill already says offline
                report(
                    "refresh", "refresh_failed", "refreshing the pick list failed: \(error)", error, level: .warning)
            } catch {
                report(
                    "refresh", "refresh_failed", "refreshing the pick list failed: \(error)", error, level: .warning)
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

    /// Logs a failure as one JSON line (`level`: a failed pass is an error, a failed prune or
    /// refresh a warning) and shows it as needing attention.
    private func report(
        _ source: String, _ code: String, _ message: String, _ error: any Error, level: Logger.Level = .error
    ) {
        logger.log(level, code, ["error": .error(error)])
        attention.set(source, Attention(code: code, message: message))
    }

    /// Sleeps until `date` (at most a day at a time), or until poked.
    private func waitUntil(_ date: Date) async {
        await wake.sleep(for: .milliseconds(Int64(max(0, min(date.timeIntervalSinceNow, 86_400)) * 1000)))
    }

    /// Other `scanpick` processes (a `scanpick tap` at a shell) enqueue through their own
    /// connection: SQLite's data_version changes when they commit.
    /// A queue that cannot be read is reported once (logged, and shown as needing attention) and
    /// cleared once it reads again; the watch goes on either way.
    private func watchOtherProcesses() async {
        var last: Int?
        var failing = false
        let queue = drainer.queue
        var file = FileWatch()
        while !isStopped {
            await watchFile(&file)
            let version: Int
            do {
                version = try await BlockingExecutor.shared.run { try queue.dataVersion() }
                if failing { attention.set("watch", nil) }
                failing = false
            } catch {
                if !failing {
                    report(
                        "watch", "queue_unreadable",
                        "the queue cannot be read to notice other processes' actions: \(error)", error,
                        level: .warning)
                }
                failing = true
                await watchWake.sleep(for: Self.watchInterval)
                continue
            }
            if let last, version != last, monitor.isOnline == true { poke() }
            last = version
            await watchWake.sleep(for: Self.watchInterval)
        }
    }

    /// How often the watch looks at the queue's data version.
    private static let watchInterval = Duration.milliseconds(500)
    /// Ends the watch's wait when the service stops.
    private let watchWake = WakeUp()

    /// What the watch knows of the queue's file: whether it is gone, and where what it held was copied.
    private struct FileWatch {
        var said: String?
        var rescued: String?
    }

    /// The queue's file deleted or replaced under the running station (at every look, two `stat`s):
    /// said at once in `attention` (code `database_gone`), what the open file holds copied out beside
    /// its path (tried again at every look until a copy is made), and no more passes.
    private func watchFile(_ watch: inout FileWatch) async {
        let queue = drainer.queue
        let copied = watch.rescued
        let look: (gone: any Error, copy: Result<String, any Error>?)? = await BlockingExecutor.shared.run {
            do {
                try queue.checkFileInPlace()
                return nil
            } catch {
                guard copied == nil else { return (error, nil) }
                return (error, Result { try queue.rescue() })
            }
        }
        guard let look else { return }
        state.withLock { $0.databaseGone = true }
        let path = queue.database.path
        var copyFailure: (any Error)?
        switch look.copy {
        case .success(let copy): watch.rescued = copy
        case .failure(let error): copyFailure = error
        case nil: break
        }
        let refused = "\(look.gone): taps and scans are refused, since nothing written to it could be found again"
        let message =
            if let copy = watch.rescued {
                "\(refused). Everything it held was copied to \(copy): stop the station, remove any \(path)-wal and \(path)-shm, move that copy to \(path) and start the station again (or set \"database\" to the copy and run scanpick queue salvage)"
            } else {
                "\(refused). Copying what it held out failed (\(copyFailure.map { "\($0)" } ?? "unknown")) and is tried again every half second: do not stop the station before a copy is made (its open file is the only one left); make room in \((path as NSString).deletingLastPathComponent)"
            }
        guard message != watch.said else { return }
        watch.said = message
        report("database", "database_gone", message, look.gone)
    }
}
