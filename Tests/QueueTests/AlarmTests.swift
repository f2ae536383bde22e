import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Queue

/// The sleep of the sync loop and the network monitor: a ring is never lost, and a sleep a ring
/// ended never reaches into the next one.
@Suite(.timeLimit(.minutes(1))) struct AlarmTests {
    @Test func aRingBeforeTheSleepEndsItAtOnce() async {
        let alarm = Alarm()
        alarm.ring()
        await alarm.sleep(for: 3600)  // returns at once, or the time limit fails the test
        alarm.ring()
        alarm.ring()  // rings do not add up: one pending ring ends one sleep
        await alarm.sleep(for: 3600)
        await alarm.sleep(for: 0.05)  // and a sleep with no ring ends on its timer
    }

    /// A deadline from outside (a far-off retry) can be any Double: no sleep length traps.
    @Test func hugeAndNaNSleepsNeitherTrapNorBlockARing() async {
        let alarm = Alarm()
        await alarm.sleep(for: .nan)  // no wait at all
        for huge in [Double.infinity, 1e300, Double(Int64.max)] {
            let sleeper = Task { await alarm.sleep(for: huge) }
            #expect(await eventually(30) { alarm.isSleeping })
            alarm.ring()
            await sleeper.value
        }
    }

    /// The bug this replaced: a ring ended a sleep, the sleep's timer stayed armed, and when it fired
    /// it cut the next sleep short (the loop then passed or probed early).
    @Test func theTimerOfASleepARingEndedNeverEndsTheNextSleep() async throws {
        let alarm = Alarm()
        let first = Task { await alarm.sleep(for: 1) }
        #expect(await eventually(30) { alarm.isSleeping })
        alarm.ring()
        await first.value
        let ended = Atomic<Bool>(false)
        let second = Task {
            await alarm.sleep(for: 3600)
            ended.store(true, ordering: .relaxed)
        }
        #expect(await eventually(30) { alarm.isSleeping })
        try await Task.sleep(for: .milliseconds(1500))  // well past the first sleep's 1 s timer
        let endedEarly = ended.load(ordering: .relaxed)
        #expect(!endedEarly, "the first sleep's timer ended the second")
        alarm.ring()
        await second.value
        let endedAfterTheRing = ended.load(ordering: .relaxed)
        #expect(endedAfterTheRing)
    }
}
