import Foundation
import Logging
import Synchronization
import Testing

@testable import ServiceManager

/// systemd's watchdog is pinged while every watched loop is alive or idle, and not once one is busy
/// past its allowance.
@Suite struct WatchdogTests {
    /// What the watchdog sent and logged.
    final class Heard: Sendable {
        let pings = Atomic(0)
        let lines = Mutex<[String]>([])

        /// Waits until `condition` holds (30 s at most: a loaded machine runs the ping thread late).
        func wait(_ what: String, until condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while !condition() {
                guard ContinuousClock.now < deadline else {
                    Issue.record("timed out waiting for \(what)")
                    return
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test func pingsStopWhileALoopIsBusyTooLongAndResumeWhenItTurnsOrRests() async throws {
        let heard = Heard()
        let watchdog = ServiceManager.Watchdog(
            interval: .milliseconds(400), log: { line in heard.lines.withLock { $0.append(line) } },
            notify: { state in if state == "WATCHDOG=1" { heard.pings.add(1, ordering: .relaxed) } })
        defer { watchdog.stop() }
        #expect(watchdog.isEnabled)
        let capture = watchdog.loop("capture")
        capture.idle()  // waiting for its first frame
        let sync = watchdog.loop("sync", allowance: .seconds(60))
        sync.alive()  // busy, but well within its own allowance

        try await heard.wait("a first ping") { heard.pings.load(ordering: .relaxed) >= 2 }
        let early = heard.lines.withLock { $0 }
        #expect(early.isEmpty, "\(early)")

        capture.alive()  // …and then nothing: wedged
        try await heard.wait("the wedged loop to be logged") {
            heard.lines.withLock { $0.contains { $0.contains(#""loop":"capture""#) } }
        }
        let silentAt = heard.pings.load(ordering: .relaxed)
        let turnAt = watchdog.turns.load(ordering: .relaxed)
        try await heard.wait("three more looks") { watchdog.turns.load(ordering: .relaxed) >= turnAt + 3 }
        #expect(heard.pings.load(ordering: .relaxed) == silentAt)  // none while the loop is wedged
        #expect(!heard.lines.withLock { $0.contains { $0.contains(#""loop":"sync""#) } })

        capture.idle()  // waiting for a frame is not wedged
        try await heard.wait("pings to resume") { heard.pings.load(ordering: .relaxed) > silentAt }
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
        let watchdog = ServiceManager.Watchdog(interval: nil, log: { _ in }, notify: { _ in Issue.record("pinged") })
        #expect(!watchdog.isEnabled)
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
