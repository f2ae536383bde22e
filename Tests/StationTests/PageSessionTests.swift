import Foundation
import Synchronization
import Testing

@testable import HTTPServing
@testable import Station

/// The page's login session, on a clock the test sets: the cookie is a session id, never the page
/// secret, and it stops working when the session expires.
@Suite struct PageSessionTests {
    static let secret = "page-secret-0123456789abcdef"

    /// A clock the test moves.
    final class Clock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    static func access(clock: Clock) -> PageAccess {
        var settings = StationConfiguration.PageSettings()
        settings.listen = ListenAddress(host: "0.0.0.0", port: 0)
        settings.allowRemote = true
        settings.secret = secret
        return PageAccess(settings: settings, port: 8377, now: { clock.now })
    }

    static func request(_ path: String, query: [String: String] = [:], cookie: String? = nil) -> HTTPRequest {
        var headers = ["host": "127.0.0.1:8377"]
        if let cookie { headers["cookie"] = cookie }
        return HTTPRequest(method: "GET", path: path, query: query, headers: headers)
    }

    /// The cookie a login link sets, as `name=value`, and its attributes.
    static func login(_ access: PageAccess) throws -> (cookie: String, attributes: [String]) {
        let link = try #require(access.newLoginPath())
        let code = String(try #require(link.split(separator: "=").last))
        let answer = access.login(request("/login", query: ["code": code]))
        #expect(answer.status == 303)
        let header = try #require(answer.headers.first { $0.0 == "Set-Cookie" }?.1)
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        return (parts[0], Array(parts.dropFirst()))
    }

    @Test func theCookieIsASessionThatExpires() throws {
        let clock = Clock()
        let access = Self.access(clock: clock)
        let (cookie, attributes) = try Self.login(access)
        #expect(!cookie.contains(Self.secret))
        #expect(cookie.hasPrefix("scanpick_page=") && cookie.count == "scanpick_page=".count + 64, "\(cookie)")
        #expect(Set(attributes) == ["Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=43200"], "\(attributes)")
        #expect(throws: Never.self) { try access.check(Self.request("/api/status", cookie: cookie)) }

        // The secret itself is no cookie (a cookie leaked from an old station would be the secret).
        #expect(throws: HTTPError.self) {
            try access.check(Self.request("/api/status", cookie: "scanpick_page=\(Self.secret)"))
        }
        clock.advance(PageAccess.sessionLifetime - 1)
        #expect(throws: Never.self) { try access.check(Self.request("/api/status", cookie: cookie)) }
        clock.advance(2)
        #expect(throws: HTTPError.self) { try access.check(Self.request("/api/status", cookie: cookie)) }
    }

    /// Login links used over and over keep a bounded number of sessions: the oldest ends first.
    @Test func sessionsAreBounded() throws {
        let clock = Clock()
        let access = Self.access(clock: clock)
        let first = try Self.login(access).cookie
        for _ in 0..<PageAccess.maxSessions {
            clock.advance(1)
            _ = try Self.login(access)
        }
        #expect(throws: HTTPError.self) { try access.check(Self.request("/api/status", cookie: first)) }
    }
}
