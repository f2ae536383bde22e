import Foundation
import TestSupport
import Testing

/// Who may use the station page: the Host and Origin rules against DNS rebinding and other sites,
/// and the secret when it serves the network. Raw HTTP to a real `scanpick station`, so the test sets
/// `Host` as an attacker's browser would.
@Suite struct PageAccessTests {
    @Test func aRebindingPageIsTurnedAwayEvenWithItsOwnOriginMatchingItsHost() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let port = try #require(station.page.port)
        let tap = #"{"pickTaskId":"\#(fixture.scenario.tasks[0])","kind":"pick","qty":1}"#

        let rebound = try RawHTTP.send(
            port: port, "POST", "/api/taps", host: "evil.example:\(port)",
            headers: ["Origin": "http://evil.example:\(port)"], body: tap)
        #expect(rebound.status == 421)
        let leak = try RawHTTP.send(port: port, "GET", "/api/queue", host: "evil.example:\(port)")
        #expect(leak.status == 421)
        #expect(!leak.text.contains("idempotencyKey"))
        let otherPort = try RawHTTP.send(
            port: port, "POST", "/api/taps", host: "127.0.0.1:\(port)", headers: ["Origin": "http://127.0.0.1:9"],
            body: tap)
        #expect(otherPort.status == 403)

        // The picker's own page: a loopback name with the page's own origin.
        #expect(try RawHTTP.send(port: port, "GET", "/api/status", host: "localhost:\(port)").status == 200)
        let own = try RawHTTP.send(
            port: port, "POST", "/api/taps", host: "127.0.0.1:\(port)",
            headers: ["Origin": "http://127.0.0.1:\(port)"], body: tap)
        #expect(own.status == 200)
        let queued = try await APIClient(station.page, token: nil).get("/api/queue")
        #expect((try JSONSerialization.jsonObject(with: queued.body) as? [Any])?.count == 1)
        #expect(await station.stop() == 0)
    }

    @Test func hostsTheOperatorListsAreServed() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig { settings in
            settings["page"] = ["listen": "127.0.0.1:0", "allowedHosts": ["Station-7.example"]]
        }
        let station = try await StationProcess(config: fixture.config)
        let port = try #require(station.page.port)
        #expect(try RawHTTP.send(port: port, "GET", "/api/status", host: "station-7.example:\(port)").status == 200)
        // Behind a proxy on another port: the listed name is enough.
        let proxied = try RawHTTP.send(
            port: port, "POST", "/api/taps", host: "station-7.example",
            headers: ["Origin": "https://station-7.example"],
            body: #"{"pickTaskId":"\#(fixture.scenario.tasks[0])","kind":"pick"}"#)
        #expect(proxied.status == 200)
        #expect(try RawHTTP.send(port: port, "GET", "/api/status", host: "station-8.example").status == 421)
        #expect(await station.stop() == 0)
    }

    /// 600 idle connections from this machine (every local program is 127.0.0.1) do not lock the
    /// picker out: the page still answers, and an event stream opened before the flood still gets
    /// its events.
    @Test func sixHundredIdleLocalConnectionsDoNotLockThePickerOut() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let port = try #require(station.page.port)
        let host = "127.0.0.1:\(port)"
        let task = fixture.scenario.tasks[0]
        let (status, tap, event) = try await onOwnThread {
            let stream = try RawConnection(port: UInt16(port))
            stream.send("GET /api/events HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            _ = stream.read(until: "event: status", timeout: .seconds(20))
            let flood = try SlowClients(port: UInt16(port), count: 600, from: ["127.0.0.1"])
            let status = try RawHTTP.send(port: port, "GET", "/api/status", host: host).status
            let tap = try RawHTTP.send(
                port: port, "POST", "/api/taps", host: host,
                body: #"{"pickTaskId":"\#(task)","kind":"pick"}"#
            ).status
            let event = stream.read(until: "event: tap", timeout: .seconds(20)) != nil
            withExtendedLifetime(flood) {}
            return (status, tap, event)
        }
        #expect(status == 200)
        #expect(tap == 200)
        #expect(event)
        #expect(await station.stop() == 0)
    }

    @Test func onTheNetworkThePageWantsItsSecret() async throws {
        let secret = "page-secret-0123456789abcdef"
        let (fixture, station, port, host) = try await Self.stationServingTheNetwork(secret: secret)
        let links = { station.standardOutput.split(separator: "\n").filter { $0.hasPrefix("page login link") } }
        #expect(await eventually { !links().isEmpty })  // printed just after the page's address
        let link = try #require(links().first?.split(separator: " ").last.flatMap { URL(string: String($0)) })

        let anonymous = try RawHTTP.send(port: port, "GET", "/api/queue", host: host)
        #expect(anonymous.status == 401)
        #expect(anonymous.text.contains("secret_required"))
        let bearer = try RawHTTP.send(
            port: port, "GET", "/api/status", host: host, headers: ["Authorization": "Bearer \(secret)"])
        #expect(bearer.status == 200)
        #expect(
            try RawHTTP.send(port: port, "GET", "/api/status", host: host, headers: ["Authorization": "Bearer nope"])
                .status == 401)
        #expect(try RawHTTP.send(port: port, "GET", "/login?code=guess", host: host).status == 401)

        // The printed link works once and leaves a session in a cookie scripts cannot read: an id
        // that expires, never the page's secret itself.
        let path = link.path + "?" + (link.query ?? "")
        let login = try RawHTTP.send(port: port, "GET", path, host: host)
        #expect(login.status == 303)
        let session = try #require(Self.sessionCookie(login.text))
        #expect(!login.text.contains(secret))
        #expect(login.text.contains("; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200"), "\(login.text)")
        #expect(try RawHTTP.send(port: port, "GET", path, host: host).status == 401)
        let withCookie = try RawHTTP.send(
            port: port, "GET", "/api/status", host: host, headers: ["Cookie": "theme=dark; scanpick_page=\(session)"])
        #expect(withCookie.status == 200)
        let secretAsCookie = try RawHTTP.send(
            port: port, "GET", "/api/status", host: host, headers: ["Cookie": "scanpick_page=\(secret)"])
        #expect(secretAsCookie.status == 401)

        // SIGHUP prints a fresh link.
        station.send(SIGHUP)
        #expect(await eventually { links().count == 2 })
        #expect(await station.stop() == 0)
        withExtendedLifetime(fixture) {}  // its server and folder, to the end
    }

    /// The session id a login answer sets in its cookie.
    static func sessionCookie(_ answer: String) -> String? {
        guard let start = answer.range(of: "Set-Cookie: scanpick_page=") else { return nil }
        return String(answer[start.upperBound...].prefix { $0 != ";" && $0 != "\r" })
    }

    /// `/metrics` on a page that serves the network is under the page's rules like every route: a
    /// scraper without the page's secret (or with another) learns nothing, one that sends it as a
    /// bearer token gets the metrics, and a host name the page does not answer to is turned away.
    @Test func onTheNetworkMetricsWantThePageSecret() async throws {
        let secret = "page-secret-for-scrapers-0123"
        let (fixture, station, port, host) = try await Self.stationServingTheNetwork(secret: secret)
        for headers in [[:], ["Authorization": "Bearer nope"], ["Cookie": "scanpick_page=nope"]] {
            let refused = try RawHTTP.send(port: port, "GET", "/metrics", host: host, headers: headers)
            #expect(refused.status == 401, "\(headers): \(refused.text)")
            #expect(refused.text.contains("secret_required"))
            #expect(!refused.text.contains("scanpick_station_"))
        }
        let bearer = ["Authorization": "Bearer \(secret)"]
        let elsewhere = try RawHTTP.send(port: port, "GET", "/metrics", host: "evil.example:\(port)", headers: bearer)
        #expect(elsewhere.status == 421)
        #expect(!elsewhere.text.contains("scanpick_station_"))
        let scraped = try RawHTTP.send(port: port, "GET", "/metrics", host: host, headers: bearer)
        #expect(scraped.status == 200, "\(scraped.text)")
        let body = try #require(scraped.text.range(of: "\r\n\r\n").map { String(scraped.text[$0.upperBound...]) })
        let scrape = try await PrometheusScrape.parse(body)
        #expect(scrape.value("scanpick_station_queue_actions", ["state": "pending"]) == 0)
        #expect(await station.stop() == 0)
        withExtendedLifetime(fixture) {}  // its server and folder, to the end
    }

    /// A station whose page listens with `allowRemote` and `secret` in its `page.tokenFile`, with its
    /// fixture (which keeps its server and folder alive), its page's port and the `Host` it answers to.
    static func stationServingTheNetwork(secret: String) async throws -> (
        StationFixture, StationProcess, port: Int, host: String
    ) {
        let fixture = try await StationFixture()
        let secretFile = try fixture.folder.writePrivate("page.secret", bytes: Array((secret + "\n").utf8))
        try fixture.rewriteConfig { settings in
            settings["page"] = ["listen": "127.0.0.1:0", "allowRemote": true, "tokenFile": secretFile]
        }
        let station = try await StationProcess(config: fixture.config)
        let port = try #require(station.page.port)
        return (fixture, station, port, "127.0.0.1:\(port)")
    }

    /// A page secret rotated in its file applies without a restart: the old secret stops working at
    /// once, the new one works, and the fresh login link sets the new one. A change that does need a
    /// restart (the page's address) is shown as needing attention, not only logged.
    @Test func aRotatedPageSecretIsAppliedAtOnce() async throws {
        let fixture = try await StationFixture()
        let (old, new) = ("old-page-secret-0123456789", "new-page-secret-9876543210")
        let secretFile = try fixture.folder.writePrivate("page.secret", bytes: Array((old + "\n").utf8))
        try fixture.rewriteConfig { settings in settings["page"] = ["listen": "127.0.0.1:0", "tokenFile": secretFile] }
        let station = try await StationProcess(config: fixture.config)
        let port = try #require(station.page.port)
        let host = "127.0.0.1:\(port)"
        func status(_ secret: String) throws -> Int {
            try RawHTTP.send(
                port: port, "GET", "/api/status", host: host, headers: ["Authorization": "Bearer \(secret)"]
            )
            .status
        }
        #expect(try status(old) == 200)
        #expect(try status(new) == 401)
        let links = { station.standardOutput.split(separator: "\n").filter { $0.hasPrefix("page login link") } }
        #expect(links().count == 1)
        let first = try #require(links().first?.split(separator: " ").last.flatMap { URL(string: String($0)) })
        let oldLogin = try RawHTTP.send(port: port, "GET", first.path + "?" + (first.query ?? ""), host: host)
        let oldSession = try #require(Self.sessionCookie(oldLogin.text), "\(oldLogin.text)")
        func withSession(_ session: String) throws -> Int {
            try RawHTTP.send(
                port: port, "GET", "/api/status", host: host, headers: ["Cookie": "scanpick_page=\(session)"]
            ).status
        }
        #expect(try withSession(oldSession) == 200)
        // An event stream opened with the old secret, which would otherwise go on showing every
        // scan and sign-in to whoever opened it.
        let stream = try RawConnection(port: UInt16(port))
        #expect(
            stream.send("GET /api/events HTTP/1.1\r\nHost: \(host)\r\nAuthorization: Bearer \(old)\r\n\r\n"))
        #expect(try await onOwnThread { stream.read(until: "event: status", timeout: .seconds(20)) } != nil)

        _ = try fixture.folder.writePrivate("page.secret", bytes: Array((new + "\n").utf8))
        #expect(try await eventually { try status(new) == 200 })
        #expect(try status(old) == 401)
        #expect(try withSession(oldSession) == 401)  // a session ends with the secret it was opened under
        #expect(try await onOwnThread { stream.closedByPeer(within: .seconds(20)) })
        #expect(await eventually { links().count == 2 })
        let link = try #require(links().last?.split(separator: " ").last.flatMap { URL(string: String($0)) })
        let login = try RawHTTP.send(port: port, "GET", link.path + "?" + (link.query ?? ""), host: host)
        let session = try #require(Self.sessionCookie(login.text), "\(login.text)")
        #expect(try withSession(session) == 200)

        // Moving the page needs a restart: the pill says so, and the page stays where it is.
        try fixture.rewriteConfig { settings in
            settings["page"] = ["listen": "127.0.0.1:\(port == 65535 ? 65534 : port + 1)", "tokenFile": secretFile]
        }
        let page = APIClient(station.page, token: new)
        #expect(
            try await eventually {
                let items = try await page.get("/api/status").json["attention"] as? [[String: Any]] ?? []
                return items.contains { ($0["message"] as? String)?.contains("page.listen") == true }
            })
        #expect(try status(new) == 200)
        #expect(await station.stop() == 0)
    }
}

/// HTTP/1.1 over a plain socket, so a test can send any `Host` header.
enum RawHTTP {
    static func send(
        port: Int, _ method: String, _ path: String, host: String, headers: [String: String] = [:], body: String = ""
    ) throws -> (status: Int, text: String) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerProcessError(message: "socket: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ServerProcessError(message: "connect: \(errno)") }
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host)", "Connection: close"]
        if !body.isEmpty { lines += ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"] }
        lines += headers.map { "\($0.key): \($0.value)" }
        let request = Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
        guard request.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == request.count else {
            throw ServerProcessError(message: "write: \(errno)")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }
}
