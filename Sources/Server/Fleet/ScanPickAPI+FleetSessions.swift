import Digest
import Foundation
import HTTPServing
import Timestamps
import Wire

/// The fleet page's sign-in: the organisation's token, sent once, is exchanged for a session cookie
/// (HttpOnly, SameSite=Strict, Secure under TLS, ending with the session), so a new tab or a reload
/// does not ask again and the token is kept nowhere in the browser. The cookie stands for the token
/// only where the page needs it (``Route/acceptsFleetSession``).
extension ScanPickAPI {
    /// `POST /fleet/session` `{"token"}`: 200 `{"org","expiresAt"}` with the session's cookie; 401
    /// for a token no organisation has. A session the browser already had ends: a sign-in always
    /// makes a new cookie (a cookie planted before it is never the one signed in).
    func fleetSignIn(_ request: HTTPRequest) throws -> HTTPResponse {
        try Self.requireSamePage(request, secure: secureCookies)
        let body = try JSONCoding.decodeValid(FleetSignInRequest.self, from: request.body)
        let hash = SHA256.hex(of: body.token)
        guard let org = organisation(forTokenHash: hash) else { throw APIError.unauthorized }
        let previous = Self.fleetCookie(request)
        let now = Date()
        let dialect = store.dialect
        let (cookie, expiresAt) = try write(request.path) { db in
            let sessions = FleetSessions(db: db, dialect: dialect)
            if let previous { try sessions.end(previous) }
            return try sessions.create(org: org, tokenSha256: hash, now: now)
        }
        let seconds = Int(FleetSessions.lifetime)
        return .json(
            200, JSONCoding.encode(FleetSession(org: org, expiresAt: Timestamp.iso8601(expiresAt))),
            headers: [
                ("Set-Cookie", Self.setCookie(cookie, maxAge: seconds, secure: secureCookies)),
                ("Cache-Control", "no-store"),
            ])
    }

    /// `DELETE /fleet/session`: ends the browser's session (if any) and removes its cookie. 200
    /// `{"ended": true|false}` (false: it had none, or it had ended).
    func fleetSignOut(_ request: HTTPRequest) throws -> HTTPResponse {
        try Self.requireSamePage(request, secure: secureCookies)
        var ended = false
        if let cookie = Self.fleetCookie(request) {
            let dialect = store.dialect
            ended = try write(request.path) { db in try FleetSessions(db: db, dialect: dialect).end(cookie) }
        }
        return .json(
            200, Array((ended ? #"{"ended":true}"# : #"{"ended":false}"#).utf8),
            headers: [
                ("Set-Cookie", Self.setCookie("", maxAge: 0, secure: secureCookies)), ("Cache-Control", "no-store"),
            ])
    }

    /// The organisation of the request's fleet session (a worker: it reads the database); 401 when
    /// it has none, it ended, or the token it was made with is no longer in the config. A change
    /// made with the cookie must come from the page itself (JSON, same origin).
    func fleetSessionOrganisation(_ request: HTTPRequest) throws -> String {
        guard let cookie = Self.fleetCookie(request) else { throw APIError.unauthorized }
        if request.method != "GET" { try Self.requireSamePage(request, secure: secureCookies) }
        let dialect = store.dialect
        let now = Date()
        let found = try store.read { db in try FleetSessions(db: db, dialect: dialect).find(cookie, now: now) }
        guard let found, organisation(forTokenHash: found.tokenSha256) == found.org else {
            throw APIError.unauthorized
        }
        return found.org
    }

    /// The request's fleet session cookie, when it sends exactly one that is well formed: two (one
    /// planted by a neighbouring site of the domain) or a malformed one count as none.
    static func fleetCookie(_ request: HTTPRequest) -> String? {
        guard !request.repeatedHeaders.contains("cookie") else { return nil }
        let values = request.cookies(named: FleetSessions.cookie)
        guard values.count == 1, FleetSessions.isWellFormed(values[0]) else { return nil }
        return values[0]
    }

    /// Whether the request offers a fleet session instead of a token (checked later, on a worker).
    static func offersFleetSession(_ request: HTTPRequest) -> Bool {
        request.header("authorization") == nil && fleetCookie(request) != nil
    }

    /// The `Set-Cookie` value for the session cookie `value` lasting `maxAge` seconds (0 removes it).
    static func setCookie(_ value: String, maxAge: Int, secure: Bool) -> String {
        "\(FleetSessions.cookie)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    /// A sign-in, a sign-out or a change made with the cookie comes from the fleet page itself: as
    /// JSON (a form of another site cannot send that without asking first), and, when the browser
    /// says where it comes from, from this very origin. 403 `cross_origin` otherwise.
    static func requireSamePage(_ request: HTTPRequest, secure: Bool) throws(APIError) {
        if !request.body.isEmpty || request.method == "POST" {
            guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
                throw APIError(status: 415, code: "json_required", message: "send Content-Type: application/json")
            }
        }
        if let site = request.header("sec-fetch-site"), site != "same-origin", site != "none" {
            throw crossOrigin
        }
        if let origin = request.header("origin") {
            guard let host = request.header("host"), origin == (secure ? "https://" : "http://") + host else {
                throw crossOrigin
            }
        }
    }

    private static let crossOrigin = APIError(
        status: 403, code: "cross_origin", message: "the fleet page's sign-in and changes come from the page itself")
}
