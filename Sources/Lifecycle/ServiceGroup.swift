import Logging
import ServiceManager
import Synchronization
import Waking

/// Runs a process's services, as swift-service-lifecycle's group does: starts them in order (each
/// ``Service/start()`` awaited before the next, then its ``Service/run()``), tells systemd it is
/// ready and pings its watchdog while every watched loop turns, and stops them in reverse order —
/// each one's task cancelled and awaited before the one before it — on a stop signal (SIGINT,
/// SIGTERM), a ``stop()``, a cancellation of ``run()``, or when any service ends on its own. A
/// service that fails (to start, or while it runs) stops the group, and ``run()`` throws its error
/// once everything started has stopped.
///
///     let group = ServiceGroup([database, api, listener], stopSignals: signals.stops, logger: logger)
///     try await group.run()   // until SIGTERM
public final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let stopSignals: AsyncStream<Int32>?
    private let watchdog: ServiceManager.Watchdog?
    private let readyStatus: @Sendable () -> String
    private let logger: Logger
    private let notify: @Sendable (String) -> Void
    private let state = Mutex(State())
    private let stopAsked = WakeUp()

    private struct State {
        var stopping = false
        /// Why the group stops, for the log: a signal's name, a service that ended, `stop()`.
        var reason: LogFields = [:]
        /// The first error a service threw (its start or its run), which ``run()`` throws.
        var failure: (any Error)?
    }

    /// `services` in the order they start; `stopSignals` (``UnixSignals/stops``) stop the group;
    /// `watchdog` is pinged at half systemd's interval once every service has started (nil: none);
    /// `readyStatus` is the line `systemctl status` shows once they have; `notify` reaches systemd
    /// (tests listen instead).
    public init(
        _ services: [any Service], stopSignals: AsyncStream<Int32>? = nil, watchdog: ServiceManager.Watchdog? = nil,
        readyStatus: @escaping @Sendable () -> String = { "running" }, logger: Logger,
        notify: @escaping @Sendable (String) -> Void = ServiceManager.send
    ) {
        self.services = services
        self.stopSignals = stopSignals
        self.watchdog = watchdog
        self.readyStatus = readyStatus
        self.logger = logger
        self.notify = notify
    }

    /// Stops the group (safe from any thread or task, more than once).
    public func stop() { requestStop(["reason": "asked"]) }

    /// Starts every service, runs them until the group stops, stops them in reverse; throws the
    /// first failure of a service.
    public func run() async throws {
        let signalWatch = stopSignals.map { signals in
            Task { [weak self] in
                for await number in signals { self?.requestStop(["signal": .string(UnixSignals.name(number))]) }
            }
        }
        defer { signalWatch?.cancel() }
        var running: [(name: String, task: Task<Void, any Error>)] = []
        await withTaskCancellationHandler {
            for service in services {
                guard !isStopping else { break }  // a stop asked for while starting: what started stops
                do {
                    try await service.start()
                } catch {
                    fail(service.name, error, starting: true)
                    break
                }
                running.append((service.name, Task { [self] in try await runToEnd(service) }))
            }
            var pinging: Task<Void, Never>?
            if !isStopping {
                notify("READY=1\nSTATUS=\(readyStatus())")
                pinging = startWatchdog()
            }
            while !isStopping { await stopAsked.sleep(for: .seconds(3600)) }
            notify("STOPPING=1")
            stopWatchdog()
            await pinging?.value
        } onCancel: {
            requestStop(["reason": "cancelled"])
        }
        logger.notice("stopping", state.withLock { $0.reason })
        for (name, task) in running.reversed() {
            task.cancel()
            do {
                try await task.value
            } catch is CancellationError {
            } catch {
                fail(name, error)
            }
        }
        logger.notice("stopped")
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Runs `service` and stops the group when it ends, whatever ended it.
    private func runToEnd(_ service: any Service) async throws {
        do {
            try await service.run()
            requestStop(["reason": .string("\(service.name) ended")])
        } catch {
            if !(error is CancellationError) || !Task.isCancelled { fail(service.name, error) }
            throw error
        }
    }

    /// Keeps the first failure for ``run()`` to throw, logs it (`start_failed` or `service_failed`,
    /// at `error`: the journal's err, where `journalctl -p warning` finds why a unit stopped) and
    /// stops the group.
    private func fail(_ name: String, _ error: any Error, starting: Bool = false) {
        let first = state.withLock { state in
            defer { if state.failure == nil { state.failure = error } }
            return state.failure == nil
        }
        if first {
            logger.error(
                starting ? "start_failed" : "service_failed", ["service": .string(name), "message": .error(error)])
        }
        requestStop(["reason": .string("\(name) failed")])
    }

    private func requestStop(_ reason: LogFields) {
        let first = state.withLock { state in
            defer { state.stopping = true }
            if !state.stopping { state.reason = reason }
            return !state.stopping
        }
        if first { stopAsked.ring() }
    }

    // The watchdog's pings, on a thread of their own (they must not wait for a busy task pool).

    private let watchdogWake = WakeUp()
    private let watchdogStopped = Atomic(false)

    private func startWatchdog() -> Task<Void, Never>? {
        guard let watchdog, let period = watchdog.pingPeriod else { return nil }
        return Task { [self] in
            await BlockingExecutor.runOnOwnThread(named: "watchdog") { [self] in
                while !watchdogStopped.load(ordering: .relaxed) {
                    watchdog.look()
                    watchdogWake.wait(timeout: period)
                }
            }
        }
    }

    private func stopWatchdog() {
        watchdogStopped.store(true, ordering: .relaxed)
        watchdogWake.ring()
    }
}
