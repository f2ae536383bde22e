import Dispatch
import JSONText

/// The server's periodic work, each on a timer of its own: stored answers past their retention
/// and stations silent too long are pruned hourly (``ScanPickAPI/prune()``), and complete batches
/// are closed `batches.autoCloseMinutes` after their last change
/// (``ScanPickAPI/closeIdleBatches(now:)``, every ``ScanPickAPI/batchAutoCloseInterval``). A
/// failure is logged (`prune_failed`, `auto_close_failed`) and tried again at the next turn.
///
///     let housekeeping = Housekeeping(api: api, log: log)
///     housekeeping.stop()
public final class Housekeeping: Sendable {
    /// Set once in `init`, then only cancelled: a dispatch source may be cancelled from any thread
    /// (libdispatch's own guarantee), which is all `stop()` does.
    nonisolated(unsafe) private let timers: [any DispatchSourceTimer]

    /// Starts the timers; the first turns come one interval from now (`scanpick serve` prunes once
    /// before it listens).
    public init(api: ScanPickAPI, log: @escaping @Sendable (String) -> Void) {
        let prune = Self.every(.seconds(3600), failure: "prune_failed", log: log) { try api.prune() }
        let close = Self.every(api.batchAutoCloseInterval, failure: "auto_close_failed", log: log) {
            try api.closeIdleBatches()
        }
        timers = [prune, close]
    }

    /// Stops every timer (a turn under way finishes); stopping again does nothing more.
    public func stop() {
        for timer in timers { timer.cancel() }
    }

    private static func every(
        _ interval: Duration, failure: String, log: @escaping @Sendable (String) -> Void,
        _ work: @escaping @Sendable () throws -> Void
    ) -> any DispatchSourceTimer {
        let (seconds, attoseconds) = interval.components
        let period = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.setEventHandler {
            do {
                try work()
            } catch {
                var line = JSONObjectWriter()
                line.add("event", string: failure)
                line.add("error", string: String(describing: error))
                log(line.finished())
            }
        }
        timer.resume()
        return timer
    }
}
