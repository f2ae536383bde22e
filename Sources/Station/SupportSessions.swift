import Digest
import Foundation
import Queue
import Synchronization

/// Who is signed in as support on the station's page: retrying, clearing and parking dead letters
/// there needs a support sign-in, by a badge matching `support.badgePattern` or a PIN whose
/// SHA-256 is in `support.pinSha256`. A sign-in is a random session token the page sends back with
/// each support action; the name it carries (the badge's, or the one given with the PIN) is the
/// one the station log records. Sessions live in memory only (a restart signs everyone out), end
/// after ``idleLimit`` without use, and at most ``maxSessions`` are kept. Wrong badges and PINs are
/// bounded: after ``maxFailures`` in a row, sign-ins are refused for ``lockout``.
///
///     let sessions = SupportSessions()
///     let session = try sessions.signIn(.pin("4711", name: "Jo"), settings: config.support)
///     sessions.name(for: session.token, settings: config.support)  // "Jo"
public final class SupportSessions: Sendable {
    /// How long a session lasts without a support action.
    public static let idleLimit: TimeInterval = 15 * 60
    /// The most sessions kept at once (the oldest goes first).
    public static let maxSessions = 16
    /// Wrong badges or PINs in a row before sign-ins are refused for ``lockout``.
    public static let maxFailures = 5
    public static let lockout: TimeInterval = 60
    /// What a PIN is: 4 to 12 digits.
    public static let pinDigits = 4...12

    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var sessions: [String: Session] = [:]
        var failures = 0
        var lockedUntil: Date?
        /// The settings the sessions were signed in under: when they change, every session ends.
        var settings: StationConfiguration.SupportSettings?
    }

    /// A support sign-in.
    public struct Session: Sendable, Equatable {
        /// Who, as the station log records them.
        public var name: String
        /// What the page sends back with each support action.
        public var token: String
        /// When it ends unless used before.
        public var expiresAt: Date
    }

    /// How support proves who they are.
    public enum Credential: Sendable {
        /// A badge (typed, or scanned by a handheld in keyboard mode).
        case badge(String)
        /// A PIN, with the name to record (else "support PIN n", n its place in the config's list).
        case pin(String, name: String?)
    }

    /// `now` is the clock (tests set it).
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Signs support in, or says why not.
    public func signIn(_ credential: Credential, settings: StationConfiguration.SupportSettings) throws(SupportRefusal)
        -> Session
    {
        guard settings.isConfigured else { throw .notConfigured }
        let time = now()
        try state.withLock { state throws(SupportRefusal) in
            if let until = state.lockedUntil, until > time {
                throw .locked(seconds: Int(until.timeIntervalSince(time).rounded(.up)))
            }
        }
        let name = Self.name(for: credential, settings: settings)
        return try state.withLock { state throws(SupportRefusal) in
            guard let name else {
                state.failures += 1
                if state.failures >= Self.maxFailures {
                    state.failures = 0
                    state.lockedUntil = time.addingTimeInterval(Self.lockout)
                }
                throw .refused
            }
            state.failures = 0
            state.lockedUntil = nil
            if state.settings != settings { state.sessions = [:] }
            state.settings = settings
            state.sessions = state.sessions.filter { $0.value.expiresAt > time }
            while state.sessions.count >= Self.maxSessions,
                let oldest = state.sessions.min(by: { $0.value.expiresAt < $1.value.expiresAt })
            {
                state.sessions[oldest.key] = nil
            }
            let session = Session(
                name: name, token: Self.newToken(), expiresAt: time.addingTimeInterval(Self.idleLimit))
            state.sessions[session.token] = session
            return session
        }
    }

    /// The name of the session `token` names, when it is signed in under `settings` (the ones in
    /// force: a changed badge pattern or PIN list ends every session); its time starts again.
    public func name(for token: String, settings: StationConfiguration.SupportSettings) -> String? {
        let time = now()
        return state.withLock { state in
            guard state.settings == settings else {
                state.sessions = [:]
                return nil
            }
            guard var session = state.sessions[token] else { return nil }
            guard session.expiresAt > time else {
                state.sessions[token] = nil
                return nil
            }
            session.expiresAt = time.addingTimeInterval(Self.idleLimit)
            state.sessions[token] = session
            return session.name
        }
    }

    /// Ends the session `token` names (nothing when there is none).
    public func signOut(_ token: String) {
        state.withLock { $0.sessions[token] = nil }
    }

    /// The name a credential signs in as, or nil when it is not support's.
    static func name(for credential: Credential, settings: StationConfiguration.SupportSettings) -> String? {
        switch credential {
        case .badge(let badge):
            guard (1...128).contains(badge.utf8.count), let pattern = settings.badgePattern,
                let name = pattern.value(in: badge), ActionQueue.isSupportName(name)
            else { return nil }
            return name
        case .pin(let pin, let given):
            guard Self.pinDigits.contains(pin.utf8.count), pin.utf8.allSatisfy({ (0x30...0x39).contains($0) })
            else { return nil }
            let hash = SHA256.hex(of: pin)
            // Every hash is compared, each in constant time: where the match is takes no longer.
            var found: Int?
            for (index, known) in settings.pinSha256.enumerated() where SHA256.constantTimeEqual(hash, known) {
                found = found ?? index
            }
            guard let found else { return nil }
            if let given, ActionQueue.isSupportName(given) { return given }
            return "support PIN \(found + 1)"
        }
    }

    /// 32 random bytes as hex.
    private static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// Why support could not sign in, in the words the page shows.
public enum SupportRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The config has neither `support.badgePattern` nor `support.pinSha256`.
    case notConfigured
    /// Not a support badge or PIN.
    case refused
    /// Too many wrong tries: sign-ins wait `seconds`.
    case locked(seconds: Int)

    public var description: String {
        switch self {
        case .notConfigured: "support sign-in is not set up at this station: support works from a shell"
        case .refused: "that badge or PIN is not support's"
        case .locked(let seconds): "too many wrong tries: try again in \(seconds) s"
        }
    }

    /// The page's API answer: its status and code.
    public var status: Int {
        switch self {
        case .notConfigured, .refused: 403
        case .locked: 429
        }
    }

    public var code: String {
        switch self {
        case .notConfigured: "support_not_configured"
        case .refused: "support_refused"
        case .locked: "support_locked"
        }
    }
}
