import Dispatch
import Synchronization

/// A wait that another thread or task cuts short, for one waiter at a time: a loop sleeps until its
/// next turn is due or until something (a new write, a network change, a stop) rings. A ring while
/// nobody waits is kept, so the next wait returns at once: a wake-up is never lost. A thread waits
/// with ``wait(timeout:)``; a task with ``sleep(for:)``, which a cancellation also ends.
///
///     let wake = WakeUp()
///     wake.ring()                              // anywhere
///     await wake.sleep(for: .seconds(5))       // in the loop's task, or …
///     _ = wake.wait(timeout: .milliseconds(2)) // … in the loop's thread
public final class WakeUp: Sendable {
    private struct State {
        var rung = false
        /// A thread waits on `signal` (the ring that finds it must signal it, once).
        var threadWaits = false
        var sleeper: CheckedContinuation<Void, Never>?
        var timer: Task<Void, Never>?
        /// Which sleep `sleeper` is: a timer firing as a ring ends its sleep must not end the next.
        var sleepNumber = 0
    }

    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)

    public init() {}

    /// Ends the current wait now, or the next one as it starts.
    public func ring() {
        let (sleeper, timer, thread) = state.withLock { state in
            if state.threadWaits {
                state.threadWaits = false
                return (nil, nil, true) as (CheckedContinuation<Void, Never>?, Task<Void, Never>?, Bool)
            }
            guard let sleeper = state.sleeper else {
                state.rung = true
                return (nil, nil, false)
            }
            defer {
                state.sleeper = nil
                state.timer = nil
            }
            return (sleeper, state.timer, false)
        }
        if thread { signal.signal() }
        timer?.cancel()
        sleeper?.resume()
    }

    /// Forgets a ring kept for the next wait: for a waiter that has just seen to everything a ring
    /// before now could have announced, and wants its next wait to last unless rung again.
    public func forgetRing() {
        state.withLock { $0.rung = false }
    }

    /// Blocks the calling thread (never call it from a task) until a ring, or until `timeout` has
    /// passed (nil: no limit); true when rung.
    @discardableResult
    public func wait(timeout: Duration? = nil) -> Bool {
        let waits = state.withLock { state in
            if state.rung {
                state.rung = false
                return false
            }
            state.threadWaits = true
            return true
        }
        guard waits else { return true }
        guard let timeout else {
            signal.wait()
            return true
        }
        if signal.wait(timeout: .now() + .nanoseconds(Int(clamping: Self.nanoseconds(timeout)))) == .success {
            return true
        }
        let rungMeanwhile = state.withLock { state in
            defer { state.threadWaits = false }
            return !state.threadWaits  // a ring took the waiter and signals (or signalled) it
        }
        if rungMeanwhile { signal.wait() }  // that signal is on its way: take it, or it would end the next wait
        return rungMeanwhile
    }

    /// Suspends the calling task until a ring, `duration` (at most a day: a sleeper re-reads its
    /// deadline when it wakes), or the task's cancellation, whichever comes first.
    public func sleep(for duration: Duration) async {
        let limit = Duration.nanoseconds(min(Self.nanoseconds(duration), 86_400 * 1_000_000_000))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let sleeping = state.withLock { state -> Bool in
                    if state.rung || limit <= .zero || Task.isCancelled {
                        state.rung = false
                        return false
                    }
                    state.sleepNumber &+= 1
                    let number = state.sleepNumber
                    state.sleeper = continuation
                    state.timer = Task { [weak self] in
                        // Cancelled means a ring already ended this sleep: nothing left to do.
                        guard (try? await Task.sleep(for: limit)) != nil else { return }
                        self?.timeUp(number)
                    }
                    return true
                }
                if !sleeping { continuation.resume() }
            }
        } onCancel: {
            timeUp(nil)
        }
    }

    /// Whether a task sleeps now (for tests).
    public var isSleeping: Bool { state.withLock { $0.sleeper != nil } }

    /// Ends sleep `number` (nil: whichever sleeps) when it is still the one sleeping.
    private func timeUp(_ number: Int?) {
        let (sleeper, timer) = state.withLock { state in
            guard number == nil || state.sleepNumber == number, let sleeper = state.sleeper else {
                return (nil, nil) as (CheckedContinuation<Void, Never>?, Task<Void, Never>?)
            }
            defer {
                state.sleeper = nil
                state.timer = nil
            }
            return (sleeper, state.timer)
        }
        if number == nil { timer?.cancel() }
        sleeper?.resume()
    }

    /// `duration` in nanoseconds, 0 when negative, at most a year (a wait read from outside must not trap).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let year: Int64 = 365 * 86_400
        return seconds >= year ? year * 1_000_000_000 : max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
