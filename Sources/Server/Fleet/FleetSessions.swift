import Digest
import Foundation
import Storage

/// The `fleet_sessions` table, whose SQL lives here and nowhere else: the fleet page's sign-ins.
/// Signing in with the organisation's token makes a session of ``lifetime``, known to the browser
/// only as a random cookie (256 bits) and to the database only as that cookie's SHA-256. An
/// organisation has at most ``maxPerOrganisation`` (a new one ends the oldest), every session ends
/// at its `expires_at`, and one made with a token the config no longer holds is refused.
///
///     let sessions = FleetSessions(db: db, dialect: dialect)
///     let (cookie, ends) = try sessions.create(org: "acme", tokenSha256: hash, now: Date())
///     let org = try sessions.find(cookie, now: Date())?.org
struct FleetSessions {
    let db: any SQLConnection
    let dialect: SQLDialect

    /// How long a sign-in lasts: a shift, and some.
    static let lifetime: TimeInterval = 12 * 3600
    /// Sessions one organisation may have at once (leads, supervisors, wall screens).
    static let maxPerOrganisation = 100
    /// The cookie's name.
    static let cookie = "scanpick_fleet"

    /// One session as stored.
    struct Found: Equatable {
        var org: String
        var tokenSha256: String
    }

    /// A new session for `org`, made with the token whose hash is `tokenSha256`: its cookie value
    /// (never stored) and when it ends. The organisation's ended sessions are deleted, and so are
    /// its oldest beyond ``maxPerOrganisation`` (PostgreSQL takes the organisation's session lock
    /// first, so servers side by side never keep more).
    func create(org: String, tokenSha256: String, now: Date) throws -> (cookie: String, expiresAt: Date) {
        if let lock = dialect.lockFleetSessions { try db.runLater(lock, [org]) }
        let cookie = APIToken.random256Bits()
        let expiresAt = now.addingTimeInterval(Self.lifetime)
        try db.run("DELETE FROM fleet_sessions WHERE org = ? AND expires_at <= ?", [org, now])
        try db.run(
            "INSERT INTO fleet_sessions (id_sha256, org, token_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            [SHA256.hex(of: cookie), org, tokenSha256, now, expiresAt])
        try db.run(
            """
            DELETE FROM fleet_sessions WHERE org = ?1 AND id_sha256 NOT IN (
                SELECT id_sha256 FROM fleet_sessions WHERE org = ?1 ORDER BY created_at DESC, id_sha256 LIMIT ?2)
            """, [org, Self.maxPerOrganisation])
        return (cookie, expiresAt)
    }

    /// The session whose cookie is `cookie`, if it has not ended.
    func find(_ cookie: String, now: Date) throws -> Found? {
        try db.row(
            "SELECT org, token_sha256 FROM fleet_sessions WHERE id_sha256 = ? AND expires_at > ?",
            [SHA256.hex(of: cookie), now]
        ).map { Found(org: try $0.string("org"), tokenSha256: try $0.string("token_sha256")) }
    }

    /// Ends the session whose cookie is `cookie`; returns whether there was one.
    @discardableResult
    func end(_ cookie: String) throws -> Bool {
        try db.run("DELETE FROM fleet_sessions WHERE id_sha256 = ?", [SHA256.hex(of: cookie)]) > 0
    }

    /// Deletes every organisation's ended sessions; returns how many.
    func prune(now: Date) throws -> Int {
        try db.run("DELETE FROM fleet_sessions WHERE expires_at <= ?", [now])
    }

    /// Whether `value` looks like a cookie this server made: 43 URL-safe base64 characters. Anything
    /// else is refused before it is hashed or looked up.
    static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 43
            && value.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            }
    }
}
