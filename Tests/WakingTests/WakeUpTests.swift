import Foundation
import Synchronization
import Testing

@testable import Waking

/// The wait of the sync loop, the network monitor, the group commit and the log writer: a ring is
/// never lost, and a sleep a ring ended never reaches into the next one.
@Suite(.timeLimit(.minutes(3))) struct WakeUpTests {
    @Test func aRingBeforeTheSleepEndsItAtOnce() async {
        let wake = WakeUp()
        wake.ring()
        await wake.sleep(for: .seconds(3600))  // returns at once, or the time limit fails the test
        wake.ring()
        wake.ring()  // rings do not add up: one pending ring ends one sleep
        await wake.sleep(for: .seconds(3600))
        await wake.sleep(for: .milliseconds(50))  // and a sleep with no ring ends on its timer
    }

    /// A deadline from outside (a far-off retry) can be any length: none traps.
    @Test func hugeAndNegativeSleepsNeitherTrapNorBlockARing() async {
        let wake = WakeUp()
        await wake.sleep(for: .seconds(-5))  // no wait at all
        for huge in [Duration.seconds(Int64.max), .seconds(1e12)] {
            let sleeper = Task { await wake.sleep(for: huge) }
            await until { wake.isSleeping }
            wake.ring()
            await sleeper.value
        }
    }

    /// The bug `Alarm` once had: a ring ended a sleep, the sleep's timer stayed armed, and when it
    /// fired it cut the next sleep short.
    @Test func theTimerOfASleepARingEndedNeverEndsTheNextSleep() async throws {
        let wake = WakeUp()
        let first = Task { await wake.sleep(for: .seconds(1)) }
        await until { wake.isSleeping }
        wake.ring()
        await first.value
        let ended = Atomic<Bool>(false)
        let second = Task {
            await wake.sleep(for: .seconds(3600))
            ended.store(true, ordering: .relaxed)
        }
        await until { wake.isSleeping }
        try await Task.sleep(for: .milliseconds(1500))  // well past the first sleep's 1 s timer
        let endedEarly = ended.load(ordering: .relaxed)
        #expect(!endedEarly, "the first sleep's timer ended the second")
        wake.ring()
        await second.value
        let endedAfterTheRing = ended.load(ordering: .relaxed)
        #expect(endedAfterTheRing)
    }

    /// Cancellation means stop: a task sleeping for an hour ends when it is cancelled.
    @Test func aCancelledTaskStopsSleeping() async {
        let wake = WakeUp()
        let sleeper = Task { await wake.sleep(for: .seconds(3600)) }
        await until { wake.isSleeping }
        sleeper.cancel()
        await sleeper.value
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await wake.sleep(for: .seconds(3600))
        }
        await cancelledFirst.value
    }

    /// A thread waits with a timeout; a ring that comes while it gives up is not lost to the next.
    @Test func aThreadWaitsUntilRungOrItsTimeout() async throws {
        let wake = WakeUp()
        let timedOut = try await onThread { wake.wait(timeout: .milliseconds(30)) }
        #expect(!timedOut)
        wake.ring()
        let rungBefore = try await onThread { wake.wait(timeout: .seconds(3600)) }
        #expect(rungBefore)
        let waiting = Task { try await onThread { wake.wait(timeout: .seconds(3600)) } }
        try await Task.sleep(for: .milliseconds(50))
        wake.ring()
        #expect(try await waiting.value)
        // Many rings racing many short waits: every wait ends, none hangs on a stale signal.
        for _ in 0..<50 {
            let racing = Task { try await onThread { wake.wait(timeout: .microseconds(50)) } }
            wake.ring()
            _ = try await racing.value
        }
        _ = wake.wait(timeout: .zero)  // takes a ring the last wait left, if any
        #expect(try await onThread { wake.wait(timeout: .milliseconds(10)) } == false)
    }

    func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
    }

    /// Waits (in steps of 5 ms, never spinning: the suite shares two cores) until `condition` holds.
    func until(_ condition: () -> Bool) async {
        while !condition() { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
