internal import CSystemd
import Foundation
import Logging
import Synchronization

/// Tells systemd how the service is doing (`sd_notify`): ready once it serves, stopping when asked
/// to, and a watchdog ping while every loop that must stay alive says it is. Under a unit with
/// `Type=notify` and `WatchdogSec=`; outside systemd every call does nothing. A service group
/// (Lifecycle's) sends ready and stopping and runs the watchdog's looks.
///
///     let watchdog = ServiceManager.Watchdog(logger: logger)
///     let sync = watchdog.loop("sync")        // the loop calls sync.alive() each turn
///     watchdog.look()                         // at watchdog.pingPeriod, on the group's thread
public enum ServiceManager {
    /// Whether systemd is waiting for our notifications (`NOTIFY_SOCKET` is set).
    public static var isManaged: Bool { ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] != nil }

    /// The watchdog interval systemd expects pings within (`WatchdogSec=`), or nil without one.
    public static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// Sends `state` to systemd (`READY=1`, `STOPPING=1`, `WATCHDOG=1` …); nothing outside systemd.
    @Sendable public static func send(_ state: String) {
        guard isManaged else { return }
        _ = sd_notify(0, state)
    }

    /// Pings systemd's watchdog at half its interval while every watched loop is alive; a loop that
    /// has been busy longer than its allowance (a wedged capture, sync or database loop) stops the
    /// pings, is logged by name, and systemd restarts the service. A loop waiting for work (a frame,
    /// a key, a request) is not wedged: it says so with ``Loop/idle()``.
    public final class Watchdog: Sendable {
        /// One loop that must stay alive: it calls ``alive()`` on each turn and ``idle()`` before it
        /// waits for work that may be long in coming.
        public final class Loop: Sendable {
            public let name: String
            /// The uptime (ns) of the turn in progress; 0 while idle.
            private let busySince: Atomic<Int64>
            init(name: String) {
                self.name = name
                busySince = Atomic(Watchdog.now())
            }
            /// The loop is turning (call at least once per allowance while busy).
            public func alive() { busySince.store(Watchdog.now(), ordering: .relaxed) }
            /// The loop waits for work (a frame, a key press, a request): not wedged however long.
            public func idle() { busySince.store(0, ordering: .relaxed) }
            /// ``alive()`` when `busy`, ``idle()`` otherwise (for a component's heartbeat closure).
            @Sendable public func beat(_ busy: Bool) { if busy { alive() } else { idle() } }
            var silentFor: Int64 {
                let since = busySince.load(ordering: .relaxed)
                return since == 0 ? 0 : Watchdog.now() - since
            }
        }

        private struct Watched {
            let name: String
            let allowance: Int64
            let silentFor: @Sendable () -> Int64
        }

        private let watched = Mutex<[Watched]>([])
        private let interval: Duration?
        private let logger: Logger
        private let notify: @Sendable (String) -> Void
        /// Loops already said to be silent (said once, until the pings resume).
        private let reported = Mutex<Set<String>>([])
        /// How many times the loops have been looked at (for tests).
        let turns = Atomic(0)

        /// A watchdog whose pings ``look()`` sends, at ``pingPeriod`` (a service group's thread
        /// does); `logger` hears which loop went silent, at `critical`.
        public init(
            logger: Logger, interval: Duration? = ServiceManager.watchdogInterval,
            notify: @escaping @Sendable (String) -> Void = ServiceManager.send
        ) {
            self.interval = interval
            self.notify = notify
            self.logger = logger
        }

        /// How often ``look()`` should run: half systemd's interval (nil: no watchdog).
        public var pingPeriod: Duration? { interval.map { $0 / 2 } }

        /// Looks at every watched loop once: pings systemd when none is busy past its allowance, or
        /// logs each newly silent one (and does not ping).
        public func look() {
            let silent = watched.withLock { $0.map { ($0, $0.silentFor()) }.filter { $0.1 > $0.0.allowance } }
            if silent.isEmpty {
                notify("WATCHDOG=1")
                reported.withLock { $0.removeAll() }
            } else {
                for (loop, silence) in silent where reported.withLock({ $0.insert(loop.name).inserted }) {
                    let message =
                        "busy for \(silence / 1_000_000) ms: no more watchdog pings, systemd will restart the service"
                    logger.critical("watchdog", ["loop": .string(loop.name), "message": .string(message)])
                }
            }
            turns.add(1, ordering: .relaxed)
        }

        /// Whether systemd watches the service (a `WatchdogSec=` interval is set).
        public var isEnabled: Bool { interval != nil }

        /// Registers a loop that must keep saying it is alive, busy for at most `allowance` per turn
        /// (default: the watchdog interval).
        public func loop(_ name: String, allowance: Duration? = nil) -> Loop {
            let loop = Loop(name: name)
            watch(name, allowance: allowance) { loop.silentFor }
            return loop
        }

        /// Watches something that reports for itself how long it has been busy (in nanoseconds; 0
        /// when idle), such as a pool of worker threads.
        public func watch(_ name: String, allowance: Duration? = nil, silentFor: @escaping @Sendable () -> Int64) {
            let limit = Self.nanoseconds(allowance ?? interval ?? .seconds(30))
            watched.withLock { $0.append(Watched(name: name, allowance: limit, silentFor: silentFor)) }
        }

        static func now() -> Int64 { Int64(clamping: DispatchTime.now().uptimeNanoseconds) }

        /// `duration` in nanoseconds, saturated at `Int64.max` (a `WatchdogSec=` of years must not trap).
        static func nanoseconds(_ duration: Duration) -> Int64 {
            let (seconds, overflow) = duration.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
            guard !overflow else { return duration.components.seconds < 0 ? 0 : .max }
            return seconds.addingReportingOverflow(duration.components.attoseconds / 1_000_000_000).overflow
                ? .max : seconds + duration.components.attoseconds / 1_000_000_000
        }
    }
}
