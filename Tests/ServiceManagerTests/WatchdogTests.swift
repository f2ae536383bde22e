import Foundation
import Logging
import Synchronization
import Testing

@testable import ServiceManager

/// systemd's watchdog is pinged while every watched loop is alive or idle, and not once one is busy
/// past its allowance.
@Suite struct WatchdogTests {
    /// What the watchdog sent.
    final class Heard: Sendable {
        let pings = Atomic(0)
    }

    /// A loop busy past its own allowance stops the pings (another, busy within a longer one,
    /// does not), and they resume once it turns or rests.
    @Test func pingsStopWhileALoopIsBusyTooLongAndResumeWhenItTurnsOrRests() {
        let heard = Heard()
        let collected = CollectedLog()
        let watchdog = ServiceManager.Watchdog(
            logger: collected.logger, interval: .milliseconds(40),
            notify: { state in if state == "WATCHDOG=1" { heard.pings.add(1, ordering: .relaxed) } })
        #expect(watchdog.isEnabled)
        let capture = watchdog.loop("capture")
        capture.idle()  // waiting for its first frame
        let sync = watchdog.loop("sync", allowance: .seconds(60))
        sync.alive()  // busy, but well within its own allowance
        watchdog.look()
        #expect(heard.pings.load(ordering: .relaxed) == 1)
        #expect(collected.lines.isEmpty, "\(collected.lines)")

        capture.alive()  // …and then nothing for longer than the interval: wedged
        usleep(60_000)
        watchdog.look()
        watchdog.look()
        #expect(heard.pings.load(ordering: .relaxed) == 1)  // none while the loop is wedged
        #expect(collected.lines.contains { $0.contains(#""loop":"capture""#) })
        #expect(!collected.lines.contains { $0.contains(#""loop":"sync""#) })

        capture.idle()  // waiting for a frame is not wedged
        watchdog.look()
        #expect(heard.pings.load(ordering: .relaxed) == 2)
    }

    /// A group's watchdog looks when it is told to: one look, one ping or one line per newly silent
    /// loop (at `critical`, which the journal files as crit).
    @Test func eachLookPingsOrSaysWhichLoopIsSilent() {
        let heard = Heard()
        let collected = CollectedLog()
        let watchdog = ServiceManager.Watchdog(
            logger: collected.logger, interval: .milliseconds(10),
            notify: { state in if state == "WATCHDOG=1" { heard.pings.add(1, ordering: .relaxed) } })
        #expect(watchdog.pingPeriod == .milliseconds(5))
        let capture = watchdog.loop("capture", allowance: .zero)
        capture.idle()
        watchdog.look()
        #expect(heard.pings.load(ordering: .relaxed) == 1)
        capture.alive()
        usleep(2000)
        watchdog.look()
        watchdog.look()
        #expect(heard.pings.load(ordering: .relaxed) == 1)
        let lines = collected.lines
        #expect(lines.count == 1, "said once, not once per look: \(lines)")
        #expect(lines.first?.contains(#""level":"critical","event":"watchdog","loop":"capture""#) == true)
        capture.idle()
        watchdog.look()
        #expect(heard.pings.load(ordering: .relaxed) == 2)
    }

    @Test func withoutAnIntervalNothingIsWatched() {
        let watchdog = ServiceManager.Watchdog(
            logger: .discarding, interval: nil, notify: { _ in Issue.record("pinged") })
        #expect(!watchdog.isEnabled)
        #expect(watchdog.pingPeriod == nil)
        watchdog.loop("capture").alive()
    }

    /// `WATCHDOG_USEC` comes from outside: a huge one saturates instead of trapping.
    @Test func hugeIntervalsSaturate() {
        #expect(ServiceManager.Watchdog.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(ServiceManager.Watchdog.nanoseconds(.seconds(Int64.max)) == .max)
        #expect(ServiceManager.Watchdog.nanoseconds(.microseconds(UInt64.max / 2)) == .max)
        #expect(ServiceManager.Watchdog.nanoseconds(.seconds(-5)) <= 0)
    }
}
