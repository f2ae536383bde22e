import Testing

@testable import Lifecycle

/// What the station's sources wait on ("scanning is on"): a wait ends when the value reaches what
/// it waits for, at once when it already has, and on a cancellation.
@Suite(.timeLimit(.minutes(3))) struct LiveValueTests {
    @Test func aWaitEndsWhenTheValueReachesItsCondition() async {
        let scanning = LiveValue(false)
        let waiter = Task { await scanning.wait { $0 } }
        #expect(scanning.set(false) == false)  // no change, no wake-up
        #expect(scanning.set(true))
        #expect(await waiter.value == true)
        #expect(await scanning.wait { $0 } == true)  // holds already: at once
    }

    @Test func aCancelledWaitEnds() async {
        let scanning = LiveValue(false)
        let waiter = Task { await scanning.wait { $0 } }
        waiter.cancel()
        #expect(await waiter.value == false)
        #expect(scanning.value == false)
    }
}
