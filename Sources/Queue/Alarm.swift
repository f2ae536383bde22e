import Foundation
import Synchronization

/// A sleep another thread can cut short: the sync loop waits for its next pass, the network monitor
/// for its next probe, and either wakes at once when rung (an enqueue, a network change, a stop). A
/// ring while nobody sleeps is kept, so the next sleep returns at once: a wake-up is never lost.
/// Each sleep's timer is cancelled when a ring ends it, so rings never pile up sleeping timers and
/// an old timer never ends a later sleep early.
///
///     let alarm = Alarm()
///     await alarm.sleep(for: 5)  // in the loop
///     alarm.ring()               // anywhere
final class Alarm: Sendable {
    private let state = Mutex(State())

    private struct State {
        var sleeper: CheckedContinuation<Void, Never>?
        var timer: Task<Void, Never>?
        /// Which sleep `sleeper` is: a timer that fires as a ring ends its sleep must not end the next.
        var sleepNumber = 0
        var rung = false
    }

    /// Returns after `seconds` (at most a day: a sleeper re-reads its deadline when it wakes), or at
    /// the first ring (at once if one came since the last sleep).
    func sleep(for requested: TimeInterval) async {
        // A timer of Int64.max seconds, or of NaN, would trap: a day at most, and NaN is no wait.
        let seconds = requested.isNaN ? 0 : min(requested, 86_400)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let sleeping = state.withLock { state -> Bool in
                if state.rung || seconds <= 0 {
                    state.rung = false
                    return false
                }
                state.sleepNumber &+= 1
                let number = state.sleepNumber
                state.sleeper = continuation
                state.timer = Task { [weak self] in
                    // Cancelled means a ring already ended this sleep: nothing left to do.
                    guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
                    self?.timeUp(number)
                }
                return true
            }
            if !sleeping { continuation.resume() }
        }
    }

    /// Whether a sleep is in progress (for tests).
    var isSleeping: Bool { state.withLock { $0.sleeper != nil } }

    /// Ends the current sleep now, or the next one as it starts.
    func ring() {
        let (sleeper, timer) = state.withLock { state in
            guard let sleeper = state.sleeper else {
                state.rung = true
                return (nil, nil) as (CheckedContinuation<Void, Never>?, Task<Void, Never>?)
            }
            defer {
                state.sleeper = nil
                state.timer = nil
            }
            return (sleeper, state.timer)
        }
        timer?.cancel()
        sleeper?.resume()
    }

    private func timeUp(_ number: Int) {
        let sleeper = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.sleepNumber == number, let sleeper = state.sleeper else { return nil }
            state.sleeper = nil
            state.timer = nil
            return sleeper
        }
        sleeper?.resume()
    }
}
