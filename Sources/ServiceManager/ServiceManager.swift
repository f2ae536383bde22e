internal import CSystemd
import Foundation
import Synchronization

/// Tells systemd how the service is doing (`sd_notify`): ready once it serves, stopping when asked
/// to, and a watchdog ping while every loop that must stay alive says it is. Under a unit with
/// `Type=notify` and `WatchdogSec=`; outside systemd every call does nothing.
///
///     let watchdog = ServiceManager.Watchdog(log: log)
///     let sync = watchdog.loop("sync")        // the loop calls sync.alive() each turn
///     ServiceManager.ready(status: "serving on 127.0.0.1:8080")
public enum ServiceManager {
    /// Whether systemd is waiting for our notifications (`NOTIFY_SOCKET` is set).
    public static var isManaged: Bool { ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] != nil }

    /// The service is ready (`READY=1`), with a line for `systemctl status`.
    public static func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }

    /// The service is stopping (`STOPPING=1`).
    public static func stopping() { notify("STOPPING=1") }

    /// A new line for `systemctl status`.
    public static func status(_ text: String) { notify("STATUS=\(text)") }

    /// The watchdog interval systemd expects pings within (`WatchdogSec=`), or nil without one.
    public static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    private static func notify(_ state: String) {
        guard isManaged else { return }
        _ = sd_notify(0, state)
    }

    /// Pings systemd's watchdog at half its interval while every registered loop has said it is
    /// alive within the interval; a loop that has not (a wedged capture or sync loop) stops the
    /// pings, is logged by name, and systemd restarts the service.
    public final class Watchdog: Sendable {
        /// One loop that must stay alive: it calls ``alive()`` on each turn (at least once per
        /// interval; a loop that waits long calls it while waiting).
        public final class Loop: Sendable {
            public let name: String
            private let lastAlive: Atomic<Int64>
            init(name: String) {
                self.name = name
                lastAlive = Atomic(Watchdog.now())
            }
            public func alive() { lastAlive.store(Watchdog.now(), ordering: .relaxed) }
            var silentFor: Int64 { Watchdog.now() - lastAlive.load(ordering: .relaxed) }
        }

        private let loops = Mutex<[Loop]>([])
        private let interval: Duration?
        private let log: @Sendable (String) -> Void
        private let stopped = Atomic(false)

        /// Starts pinging if the unit has a watchdog; `log` hears which loop went silent.
        public init(interval: Duration? = ServiceManager.watchdogInterval, log: @escaping @Sendable (String) -> Void) {
            self.interval = interval
            self.log = log
            guard let interval else { return }
            let thread = Thread { [self] in ping(every: interval / 2) }
            thread.start()
        }

        /// Registers a loop that must keep saying it is alive.
        public func loop(_ name: String) -> Loop {
            let loop = Loop(name: name)
            loops.withLock { $0.append(loop) }
            return loop
        }

        /// Stops pinging (the service is stopping on purpose).
        public func stop() { stopped.store(true, ordering: .relaxed) }

        private func ping(every period: Duration) {
            guard let interval else { return }
            let limit = Self.nanoseconds(interval)
            var reported: Set<String> = []
            while !stopped.load(ordering: .relaxed) {
                let silent = loops.withLock { $0.filter { $0.silentFor > limit } }
                if silent.isEmpty {
                    ServiceManager.notify("WATCHDOG=1")
                    reported.removeAll()
                } else {
                    for loop in silent where reported.insert(loop.name).inserted {
                        log(
                            #"{"event":"watchdog","loop":"\#(loop.name)","message":"silent for \#(loop.silentFor / 1_000_000) ms: no more watchdog pings, systemd will restart the service"}"#
                        )
                    }
                }
                Thread.sleep(forTimeInterval: Double(Self.nanoseconds(period)) / 1e9)
            }
        }

        static func now() -> Int64 { Int64(clamping: DispatchTime.now().uptimeNanoseconds) }

        static func nanoseconds(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        }
    }
}
