import Digest
import Foundation
import Synchronization
import Testing

@testable import Station

/// Support's sign-in on the page, on a clock the test sets.
@Suite struct SupportSessionsTests {
    final class Clock: Sendable {
        let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
        var now: @Sendable () -> Date { { self.time.withLock { $0 } } }
    }

    func settings(badge: String? = "^SUP-(.+)$", pins: [String] = ["4711", "90210"])
        throws -> StationConfiguration.SupportSettings
    {
        var settings = StationConfiguration.SupportSettings()
        settings.badgePattern = try badge.map { try LabelPattern($0) }
        settings.pinSha256 = pins.map { SHA256.hex(of: $0) }
        return settings
    }

    @Test func aBadgeOrAPinSignsInAndTheNameComesFromTheSignIn() throws {
        let clock = Clock()
        let sessions = SupportSessions(now: clock.now)
        let support = try settings()
        let badge = try sessions.signIn(.badge("SUP-jo"), settings: support)
        #expect(badge.name == "jo")
        #expect(badge.token.count == 64 && badge.token != "")
        #expect(sessions.name(for: badge.token, settings: support) == "jo")
        let named = try sessions.signIn(.pin("4711", name: "Sam (support)"), settings: support)
        #expect(named.name == "Sam (support)")
        let unnamed = try sessions.signIn(.pin("90210", name: nil), settings: support)
        #expect(unnamed.name == "support PIN 2")
        #expect(Set([badge.token, named.token, unnamed.token]).count == 3)
        // A name the station log could not hold falls back to the PIN's place.
        #expect(try sessions.signIn(.pin("4711", name: "\u{202E}x"), settings: support).name == "support PIN 1")
        sessions.signOut(badge.token)
        #expect(sessions.name(for: badge.token, settings: support) == nil)
        #expect(sessions.name(for: "made-up", settings: support) == nil)
    }

    @Test func wrongBadgesAndPinsAreRefusedAndTooManyLockTheSignInForAMinute() throws {
        let clock = Clock()
        let sessions = SupportSessions(now: clock.now)
        let support = try settings()
        for wrong: SupportSessions.Credential in [
            .badge("W-ana"), .badge("SUP-"), .pin("1234", name: nil), .pin("47110", name: nil),
        ] {
            #expect(throws: SupportRefusal.refused) { try sessions.signIn(wrong, settings: support) }
        }
        // The fifth wrong try in a row locks sign-ins, the right PIN too, for a minute.
        #expect(throws: SupportRefusal.refused) { try sessions.signIn(.pin("abcd", name: nil), settings: support) }
        #expect(throws: SupportRefusal.locked(seconds: 60)) {
            try sessions.signIn(.pin("4711", name: nil), settings: support)
        }
        clock.advance(59.5)
        #expect(throws: SupportRefusal.locked(seconds: 1)) {
            try sessions.signIn(.pin("4711", name: nil), settings: support)
        }
        clock.advance(1)
        #expect(try sessions.signIn(.pin("4711", name: nil), settings: support).name == "support PIN 1")
        // Not set up: nobody signs in.
        #expect(throws: SupportRefusal.notConfigured) {
            try sessions.signIn(.pin("4711", name: nil), settings: StationConfiguration.SupportSettings())
        }
    }

    @Test func aSessionEndsAfterFifteenIdleMinutesOrWhenTheSettingsChange() throws {
        let clock = Clock()
        let sessions = SupportSessions(now: clock.now)
        let support = try settings()
        let session = try sessions.signIn(.badge("SUP-jo"), settings: support)
        clock.advance(14 * 60)
        #expect(sessions.name(for: session.token, settings: support) == "jo")  // used: its time starts again
        clock.advance(14 * 60)
        #expect(sessions.name(for: session.token, settings: support) == "jo")
        clock.advance(15 * 60 + 1)
        #expect(sessions.name(for: session.token, settings: support) == nil)
        // A changed PIN list (a PIN taken away) ends every session.
        let again = try sessions.signIn(.pin("90210", name: nil), settings: support)
        #expect(sessions.name(for: again.token, settings: try settings(pins: ["4711"])) == nil)
        #expect(sessions.name(for: again.token, settings: support) == nil)
    }

    @Test func atMostSixteenSessionsAreKept() throws {
        let clock = Clock()
        let sessions = SupportSessions(now: clock.now)
        let support = try settings()
        var tokens: [String] = []
        for index in 0..<(SupportSessions.maxSessions + 1) {
            tokens.append(try sessions.signIn(.badge("SUP-\(index)"), settings: support).token)
            clock.advance(1)
        }
        #expect(sessions.name(for: tokens[0], settings: support) == nil)  // the oldest went
        #expect(tokens.dropFirst().allSatisfy { sessions.name(for: $0, settings: support) != nil })
    }
}
