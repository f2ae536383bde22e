import Foundation
import HTTPServing
import Synchronization

/// Who may use the station page, checked before anything else on every request:
///
/// - `Host` must name the page: its listen address, a loopback name, or one of `page.allowedHosts`;
///   anything else is 421. A web page whose name was rebound to the station's address (DNS
///   rebinding) sends its own name, so it is turned away before it can read or tap anything.
/// - `Origin`, when sent, must be one of those hosts (on the page's port, unless the host is in
///   `allowedHosts`, e.g. behind a proxy): it is never compared with `Host`, which the attacker
///   chooses. A browser's `Sec-Fetch-Site` other than same-origin is refused too.
/// - With `page.allowRemote`, every request but the login link must bring the page's secret as
///   `Authorization: Bearer SECRET`, or the session cookie the one-time login link sets: a random
///   session id (never the secret itself), HttpOnly, SameSite=Strict, that expires after
///   ``sessionLifetime`` and ends when the secret or the allowed hosts change.
///
///     let access = PageAccess(settings: config.page, port: server.address.port)
///     try access.check(request)
final class PageAccess: Sendable {
    let settings: StationConfiguration.PageSettings
    private let port: UInt16
    private let hosts: Set<String>
    private let loginCode = Mutex<String?>(nil)
    /// Live login sessions: their ids and when each expires.
    private let sessions = Mutex<[String: Date]>([:])
    private let now: @Sendable () -> Date

    static let cookie = "scanpick_page"
    /// How long a login session lasts: a shift, after which the picker opens a new login link.
    static let sessionLifetime: TimeInterval = 12 * 3600
    /// The most sessions kept at once (the oldest ends first): each login link makes one.
    static let maxSessions = 64

    init(settings: StationConfiguration.PageSettings, port: UInt16, now: @escaping @Sendable () -> Date = Date.init) {
        self.settings = settings
        self.port = port
        self.now = now
        var hosts: Set<String> = ["localhost", "127.0.0.1", "::1"]
        let listen = settings.listen.host.lowercased()
        if !["0.0.0.0", "::"].contains(listen) { hosts.insert(listen) }
        self.hosts = hosts.union(settings.allowedHosts.map(Self.bare))
    }

    /// Whether requests must bring the secret.
    var needsSecret: Bool { settings.secret != nil }

    /// The page's base URL as a browser should open it (see ``StationPage/url``).
    var url: String {
        let listen = settings.listen.host
        var host = ["0.0.0.0", "::"].contains(listen) ? (settings.allowedHosts.first ?? "127.0.0.1") : listen
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        return "http://\(host):\(port)"
    }

    /// Whether `other` lets in exactly whom these settings do (the same secret and hosts).
    func admitsAlike(_ other: StationConfiguration.PageSettings) -> Bool {
        other.secret == settings.secret && Set(other.allowedHosts) == Set(settings.allowedHosts)
    }

    /// A fresh one-time login path (`/login?code=…`), replacing any unused one; nil without a secret.
    func newLoginPath() -> String? {
        guard settings.secret != nil else { return nil }
        let code = Self.randomHex(bytes: 16)
        loginCode.withLock { $0 = code }
        return "/login?code=\(code)"
    }

    /// Random bytes from the system's generator, in hex.
    private static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Whether `id` names a live session (expired ones are forgotten on the way).
    private func isLiveSession(_ id: String) -> Bool {
        let time = now()
        return sessions.withLock { sessions in
            sessions = sessions.filter { $0.value > time }
            return sessions.keys.contains { Self.constantTimeEqual($0, id) }
        }
    }

    /// Throws the refusal for a request that may not use the page.
    func check(_ request: HTTPRequest) throws(HTTPError) {
        guard let host = request.header("host").map(Self.hostName), hosts.contains(host) else {
            throw HTTPError(
                status: 421, code: "misdirected_request",
                message: "this station's page does not answer to that host name (add it to page.allowedHosts)")
        }
        if let site = request.header("sec-fetch-site"), site != "same-origin" && site != "none" {
            throw HTTPError(status: 403, code: "cross_origin", message: "requests from other sites are refused")
        }
        if let origin = request.header("origin"), !allows(origin: origin) {
            throw HTTPError(
                status: 403, code: "cross_origin", message: "requests from \(origin.prefix(100)) are refused")
        }
        guard let secret = settings.secret, request.path != "/login" else { return }
        let bearer = request.header("authorization").flatMap { value -> String? in
            value.lowercased().hasPrefix("bearer ") ? String(value.dropFirst(7)) : nil
        }
        let admitted: Bool
        if let bearer {
            admitted = Self.constantTimeEqual(bearer, secret)
        } else if let session = Self.cookieValue(request.header("cookie"), name: Self.cookie) {
            admitted = isLiveSession(session)
        } else {
            admitted = false
        }
        guard admitted else {
            throw HTTPError(
                status: 401, code: "secret_required",
                message: "open the one-time login link the station printed, or send Authorization: Bearer <page secret>"
            )
        }
    }

    /// `GET /login?code=…`: a valid unused code starts a session, sets its cookie and leads to the page.
    func login(_ request: HTTPRequest) -> HTTPResponse {
        let code = request.query["code"] ?? ""
        let valid = loginCode.withLock { stored -> Bool in
            guard let expected = stored, Self.constantTimeEqual(code, expected) else { return false }
            stored = nil  // once
            return true
        }
        guard valid, settings.secret != nil else {
            return .json(
                401,
                Array(
                    #"{"error":"login_link_used","message":"this login link is not valid (each works once): ask for a new one (SIGHUP prints one)"}"#
                        .utf8))
        }
        let session = Self.randomHex(bytes: 32)
        let expires = now().addingTimeInterval(Self.sessionLifetime)
        sessions.withLock { sessions in
            if sessions.count >= Self.maxSessions, let oldest = sessions.min(by: { $0.value < $1.value }) {
                sessions[oldest.key] = nil
            }
            sessions[session] = expires
        }
        return HTTPResponse(
            status: 303,
            headers: [
                ("Location", "/"), ("Cache-Control", "no-store"),
                (
                    "Set-Cookie",
                    "\(Self.cookie)=\(session); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(Self.sessionLifetime))"
                ),
            ])
    }

    private func allows(origin: String) -> Bool {
        guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""),
            let host = url.host.map(Self.bare)
        else { return false }
        if settings.allowedHosts.map(Self.bare).contains(host) { return true }  // e.g. behind a proxy
        let originPort = url.port ?? (url.scheme == "https" ? 443 : 80)
        return hosts.contains(host) && originPort == Int(port)
    }

    /// The host name of a `Host` header, lower-cased, without its port or IPv6 brackets.
    static func hostName(_ header: String) -> String {
        let value = header.lowercased()
        if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<end])
        }
        return String(value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    private static func bare(_ host: String) -> String {
        host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    static func cookieValue(_ header: String?, name: String) -> String? {
        for part in (header ?? "").split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == name { return String(pair[1]) }
        }
        return nil
    }

    /// Compares without stopping at the first difference, so timing tells nothing about the secret.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
