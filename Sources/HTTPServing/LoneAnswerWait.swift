import Dispatch
import Foundation
import Synchronization

// How a polling thread waits, for a moment, for the answer to a request that came alone, rather
// than suspend its connection: which requests came alone, how long to wait, and the hand-over.

/// Which connection sent the last request head, and when: a request whose head follows one of the
/// same connection, or none for ``quietGap``, came alone (no other client is sending now). Only
/// such a request's answer is waited for on its polling thread (``LoneAnswerWait``): other
/// clients' requests that wait unread in their sockets are not yet open requests, and a polling
/// thread waiting for one answer would leave them unread, so that under load every commit would
/// hold one write instead of all that had arrived (measured: 5,400 scans/s at 8 connections
/// instead of 10,000).
final class HeadArrivals: Sendable {
    private let last = Mutex<(connection: UInt, at: UInt64)>((0, 0))

    /// How long no other client's request head must have arrived for one to come alone (ns).
    static let quietGap: UInt64 = 2_000_000

    /// Notes a head arriving on `connection` at `now` (uptime, ns); true if it came alone.
    func arrived(on connection: UInt, at now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Bool {
        let previous = last.withLock { last in
            defer { last = (connection, now) }
            return last
        }
        return previous.connection == connection || now &- previous.at > Self.quietGap
    }
}

/// How long a polling thread waits for the answer of a lone ``HTTPAnswer/later(_:)`` request (a
/// client sending one write after another) before it suspends the connection: up to `longest`
/// (``HTTPServerLimits/loneAnswerWaitMicroseconds``), spinning and yielding its core, so that the
/// answer goes out the moment it comes. The thread's other connections wait that long at most, and
/// only while no other request is open. While answers have lately taken longer than `longest` (a
/// slow or stalled disk) it does not wait at all, rather than spin for nothing: each lone answer's
/// delay, waited for or not, goes into a moving average (an eighth for each).
final class LoneAnswerWait: Sendable {
    /// The longest wait.
    let longest: Duration
    private let longestNanoseconds: Int
    /// The moving average of lone answers' delays, in nanoseconds.
    private let averageDelay = Atomic(0)
    /// Answers that came while their polling thread waited, so that their connection was never suspended.
    let waitedFor = Atomic(0)

    init(longest: Duration) {
        self.longest = longest
        longestNanoseconds = Self.nanoseconds(longest)
    }

    /// How long the next lone answer is waited for: `longest`, or zero while answers come later.
    var limit: Duration { averageDelay.load(ordering: .relaxed) <= longestNanoseconds ? longest : .zero }

    /// Notes a lone answer's delay.
    func came(after delay: Duration) {
        let sample = Self.nanoseconds(delay)
        var current = averageDelay.load(ordering: .relaxed)
        while true {
            let next = current - current / 8 + sample / 8
            let (exchanged, original) = averageDelay.compareExchange(
                expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
    }
}

/// Where a polling thread waits, for a moment, for the answer a responder gives from another
/// thread (``ServerCore/dispatch(_:state:connection:)``). Exactly one of ``handOver()`` (by the
/// responder) and ``giveUp()`` (by the polling thread) succeeds.
final class AnswerWaiter: Sendable {
    private static let waiting = 0
    private static let answered = 1
    private static let gaveUp = 2
    private let stage = Atomic(AnswerWaiter.waiting)
    private let made = ContinuousClock.now

    /// How long ago the waiter was made (when the request was handed on).
    var age: Duration { ContinuousClock.now - made }

    /// Looks for the answer until it comes or `limit` has passed, yielding the core between looks
    /// (a limit of zero looks once: an answer given while the request was handed on is taken).
    func waitForAnswer(upTo limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while stage.load(ordering: .acquiring) != Self.answered {
            guard ContinuousClock.now < deadline else { return false }
            sched_yield()
        }
        return true
    }

    /// The responder's side: true if the polling thread is still waiting and now has the answer.
    func handOver() -> Bool {
        stage.compareExchange(expected: Self.waiting, desired: Self.answered, ordering: .acquiringAndReleasing)
            .exchanged
    }

    /// The polling thread's side, once the connection is suspended: true if no answer was handed
    /// over (the responder will resume the connection); false if one was (the caller resumes it).
    func giveUp() -> Bool {
        stage.compareExchange(expected: Self.waiting, desired: Self.gaveUp, ordering: .acquiringAndReleasing)
            .exchanged
    }
}
