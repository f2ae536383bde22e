import Digest
import Foundation
import TestSupport
import Testing
import Timestamps

/// The fleet page's sign-in on a real `scanpick serve`: the token is exchanged once for a session
/// cookie (HttpOnly, SameSite=Strict, Secure under TLS, with an end), kept server-side as a hash,
/// bounded per organisation, good only for what the page does, and ended by signing out.
@Suite struct FleetSessionTests {
    static let cookieName = "scanpick_fleet"

    /// Signs in with `token`; returns the reply and the cookie's value it set (if any).
    static func signIn(_ server: ServerProcess, token: String, headers: [String: String] = [:]) async throws
        -> (APIClient.Reply, String?)
    {
        let reply = try await APIClient(server.baseURL, token: nil).post(
            "/fleet/session", json: ["token": token], headers: headers)
        return (reply, cookie(in: reply.headers["set-cookie"]))
    }

    static func cookie(in header: String?) -> String? {
        guard let header, header.hasPrefix(cookieName + "=") else { return nil }
        let value = header.dropFirst(cookieName.count + 1).prefix { $0 != ";" }
        return value.isEmpty ? nil : String(value)
    }

    /// A request with only the cookie (no token).
    static func withCookie(
        _ server: ServerProcess, _ method: String, _ path: String, _ cookie: String, json: Any? = nil,
        headers: [String: String] = [:]
    ) async throws -> APIClient.Reply {
        var all = headers
        all["Cookie"] = "\(cookieName)=\(cookie)"
        return try await APIClient(server.baseURL, token: nil).send(
            method, path, body: try json.map { try JSONSerialization.data(withJSONObject: $0) }, headers: all)
    }

    @Test(arguments: ServerStoreKind.allCases)
    func signingInOnceGivesACookieForThePageOnly(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let token = try #require(ServerProcess.tokens["acme"])
        let acme = APIClient(server.baseURL, token: token)
        #expect(try await FleetTests.send(acme, FleetTests.heartbeat("st-1")).status == 200)

        // A wrong token: 401, no cookie.
        let (wrong, none) = try await Self.signIn(server, token: "not-a-token")
        #expect(wrong.status == 401 && none == nil && wrong.headers["set-cookie"] == nil)

        let (reply, made) = try await Self.signIn(server, token: token)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["org"] as? String == "acme")
        let cookie = try #require(made)
        let header = try #require(reply.headers["set-cookie"])
        let attributes = Set(header.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
        // No Secure over plain HTTP (a browser would then never send it back).
        #expect(attributes == ["Path=/", "Max-Age=43200", "HttpOnly", "SameSite=Strict"], "\(header)")
        // The cookie is not the token, nor made from it; the database keeps only its hash.
        #expect(cookie != token && !header.contains(token) && cookie.utf8.count == 43)
        let expires = try #require(Timestamp.date(reply.json["expiresAt"] as? String ?? ""))
        #expect(abs(expires.timeIntervalSinceNow - 12 * 3600) < 120)
        let stored = try server.read { db in
            try db.rows("SELECT id_sha256, org, token_sha256 FROM fleet_sessions", []).map {
                [try $0.string("id_sha256"), try $0.string("org"), try $0.string("token_sha256")]
            }
        }
        #expect(stored == [[SHA256.hex(of: cookie), "acme", SHA256.hex(of: token)]])

        // The cookie reads the organisation's stations, as a new tab would (nothing but the cookie).
        let read = try await Self.withCookie(server, "GET", "/api/stations", cookie)
        #expect(read.status == 200 && read.json["org"] as? String == "acme", "\(read.text)")
        #expect((read.json["stations"] as? [[String: Any]])?.count == 1)
        // ... and opens nothing else: picks, orders, batches, heartbeats and removals want the token,
        // and a route that does not exist is the same 401 (a cookie learns nothing of routes).
        for (method, path) in [
            ("GET", "/api/batches"), ("POST", "/api/picking/pick"), ("POST", "/api/orders"),
            ("POST", "/api/stations/heartbeat"), ("DELETE", "/api/stations/st-1"), ("GET", "/api/nothing-here"),
        ] {
            let refused = try await Self.withCookie(server, method, path, cookie, json: method == "POST" ? [:] : nil)
            #expect(refused.status == 401, "\(method) \(path): \(refused.status) \(refused.text)")
        }
        // A cookie that is not one of ours, or two of them, is no session.
        for value in [String(repeating: "A", count: 43), "x", "\(cookie); \(Self.cookieName)=\(cookie)"] {
            #expect(try await Self.withCookie(server, "GET", "/api/stations", value).status == 401, "\(value)")
        }

        // Signing out ends it: the cookie is removed and no longer opens anything.
        let out = try await Self.withCookie(server, "DELETE", "/fleet/session", cookie)
        #expect(out.status == 200 && out.json["ended"] as? Bool == true, "\(out.text)")
        #expect(out.headers["set-cookie"]?.hasPrefix("\(Self.cookieName)=;") == true)
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookie).status == 401)
        #expect(try server.read { db in try db.row("SELECT COUNT(*) AS n FROM fleet_sessions", [])?.int("n") } == 0)
    }

    /// Session fixation, cross-site requests, a session past its end, and a flood of sign-ins.
    @Test(arguments: ServerStoreKind.allCases)
    func sessionsCannotBePlantedForgedOrHoarded(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let token = try #require(ServerProcess.tokens["acme"])
        let acme = APIClient(server.baseURL, token: token)
        let since = Timestamp.iso8601()
        #expect(
            try await FleetTests.send(acme, FleetTests.heartbeat("st-1", ["help": ["since": since, "by": "Ana"]]))
                .status == 200)

        // A cookie planted before the sign-in (by another site of the domain, say) is never the one
        // signed in: the sign-in makes a new one, and the planted one stays worthless.
        let planted = String(repeating: "P", count: 43)
        let (_, made) = try await Self.signIn(
            server, token: token, headers: ["Cookie": "\(Self.cookieName)=\(planted)"])
        let cookie = try #require(made)
        #expect(cookie != planted)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", planted).status == 401)
        // Signing in again from the same browser ends the session it had.
        let (_, second) = try await Self.signIn(
            server, token: token, headers: ["Cookie": "\(Self.cookieName)=\(cookie)"])
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookie).status == 401)
        let current = try #require(second)

        // Changes made with the cookie come from the page: JSON and the same origin.
        let clear = "/api/stations/st-1/help/clear"
        let crossSite = try await Self.withCookie(
            server, "POST", clear, current, json: ["since": since], headers: ["Origin": "http://evil.example"])
        #expect(crossSite.status == 403 && crossSite.errorCode == "cross_origin", "\(crossSite.text)")
        let fetchSite = try await Self.withCookie(
            server, "POST", clear, current, json: ["since": since], headers: ["Sec-Fetch-Site": "cross-site"])
        #expect(fetchSite.status == 403)
        let form = try await Self.withCookie(
            server, "POST", clear, current, json: ["since": since], headers: ["Content-Type": "text/plain"])
        #expect(form.status == 415, "\(form.text)")
        #expect(try await FleetTests.stations(acme)["st-1"]?["status"] as? String == "help")
        let signInElsewhere = try await Self.signIn(server, token: token, headers: ["Origin": "http://evil.example"])
        #expect(signInElsewhere.0.status == 403 && signInElsewhere.1 == nil)
        // From the page itself it clears.
        let host = "\(server.baseURL.host ?? "127.0.0.1"):\(server.port)"
        let fromPage = try await Self.withCookie(
            server, "POST", clear, current, json: ["since": since],
            headers: ["Origin": "http://\(host)", "Sec-Fetch-Site": "same-origin"])
        #expect(fromPage.status == 200 && fromPage.json["cleared"] as? Bool == true, "\(fromPage.text)")

        // A session past its end is refused, whatever the browser still holds.
        try server.read { db in
            try db.run(
                "UPDATE fleet_sessions SET expires_at = ? WHERE id_sha256 = ?",
                [Timestamp.iso8601(Date().addingTimeInterval(-1)), SHA256.hex(of: current)])
        }
        #expect(try await Self.withCookie(server, "GET", "/api/stations", current).status == 401)

        // A flood of sign-ins keeps at most 100 sessions: the oldest end first.
        var cookies: [String] = []
        for _ in 0..<102 {
            let (reply, made) = try await Self.signIn(server, token: token)
            #expect(reply.status == 200)
            cookies.append(try #require(made))
        }
        let count = try server.read { db in try db.row("SELECT COUNT(*) AS n FROM fleet_sessions", [])?.int("n") }
        #expect(count == 100)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookies[0]).status == 401)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookies[1]).status == 401)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookies[2]).status == 200)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookies[101]).status == 200)
        // A sign-in first deletes the organisation's ended sessions, then the oldest beyond the bound.
        try server.read { db in
            try db.run(
                "UPDATE fleet_sessions SET expires_at = ? WHERE id_sha256 = ?",
                [Timestamp.iso8601(Date().addingTimeInterval(-1)), SHA256.hex(of: cookies[50])])
        }
        #expect(try await Self.signIn(server, token: token).0.status == 200)
        let ended = try server.read { db in
            try db.row("SELECT COUNT(*) AS n FROM fleet_sessions WHERE id_sha256 = ?", [SHA256.hex(of: cookies[50])])?
                .int("n")
        }
        #expect(ended == 0)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookies[2]).status == 200)
        // A sign-in body too large for its purpose is refused before it is read.
        let huge = Data(#"{"token":""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 10_000) + Data(#""}"#.utf8)
        let tooLarge = try await APIClient(server.baseURL, token: nil).send("POST", "/fleet/session", body: huge)
        #expect(tooLarge.status == 413)
        #expect(server.isRunning)
    }

    /// A token taken out of the config ends the sessions it made (after the restart that reads it).
    @Test func aRemovedTokenEndsItsSessions() async throws {
        let server = try await ServerProcess()
        let token = try #require(ServerProcess.tokens["acme"])
        let (_, made) = try await Self.signIn(server, token: token)
        let cookie = try #require(made)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookie).status == 200)
        // The organisation's token is replaced by another in the config.
        var config = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: server.configPath)))
                as? [String: Any])
        config["organisations"] = ["acme": ["tokenSha256": [SHA256.hex(of: "the-new-token")]]]
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: server.configPath))
        try await server.restart()
        #expect(try await Self.withCookie(server, "GET", "/api/stations", cookie).status == 401)
        let (reply, fresh) = try await Self.signIn(server, token: "the-new-token")
        #expect(reply.status == 200)
        #expect(try await Self.withCookie(server, "GET", "/api/stations", try #require(fresh)).status == 200)
    }

    /// Under TLS the cookie is `Secure`, so a browser never sends it over plain HTTP.
    @Test func theCookieIsSecureUnderTLS() async throws {
        let certificates = try await TestCertificates()
        let server = try await ServerProcess(extraConfig: [
            "tls": ["certificate": certificates.serverCertificate, "key": certificates.serverKey]
        ])
        let run = try await ProcessRunner.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "--cacert", certificates.authority, "-D", "-", "-o", "/dev/null",
                "-H", "Content-Type: application/json", "--data",
                #"{"token":"\#(ServerProcess.tokens["acme"] ?? "")"}"#,
                server.baseURL.appendingPathComponent("/fleet/session").absoluteString,
            ], in: certificates.folder.path)
        #expect(run.status == 0, "\(run.standardError)")
        let header = try #require(
            run.standardOutput.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") })
        #expect(header.hasSuffix("HttpOnly; SameSite=Strict; Secure"), "\(header)")
    }
}
