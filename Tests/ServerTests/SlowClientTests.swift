import Foundation
import TestSupport
import Testing

/// Clients that hold connections open and trickle bytes (slowloris), and other protocol edges: a
/// slow or idle connection costs the server memory, not a thread, so everyone else is still served.
@Suite(.serialized) struct SlowClientTests {
    static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }

    @Test(arguments: ServerStoreKind.allCases)
    func twoThousandFiveHundredSlowConnectionsDoNotDelayAFreshClient(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(
            store: store, extraConfig: ["http": ["headerTimeoutSeconds": 4, "perAddressConnectionLimit": 64]])
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let scenario = try await PickingScenario.create(on: acme, bulkQty: 1000)
        let bulk = scenario.tasks[3]
        let token = try #require(ServerProcess.tokens["acme"])

        // 2,000 from one address, 500 more from ten others, each trickling a header forever. They
        // are held by child processes and worked on a thread of their own, never on the task pool.
        struct Outcome: Sendable {
            var health: [(Int?, Duration)] = []
            var scans: [(Int?, Duration)] = []
            var keptFromOne = 0
            var keptFromOthers = 0
            var others = 0
            var othersClosed = 0
        }
        let port = server.port
        let outcome = try await onOwnThread {
            var outcome = Outcome()
            let attack = try SlowClients(port: port, count: 2000, from: ["127.0.0.1"])
            let others = try SlowClients(port: port, count: 50, from: (2...11).map { "127.0.0.\($0)" })
            _ = try attack.trickle()
            _ = try others.trickle()
            for number in 0..<5 {
                let fresh = try RawConnection(port: port, from: "127.0.0.12")
                let (reply, took) = fresh.exchange("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                outcome.health.append((reply?.status, took))
                let body =
                    #"{"pickTaskId":"\#(bulk)","barcode":"4006381333931","scannedAt":"\#(actionTime)","workerId":"w"}"#
                let (scan, scanTook) = fresh.exchange(
                    "POST /api/picking/submit-scan HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nIdempotency-Key: slow-\(number)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
                outcome.scans.append((scan?.status, scanTook))
                _ = try attack.trickle()
                _ = try others.trickle()
            }
            outcome.keptFromOne = try attack.trickle()
            outcome.keptFromOthers = try others.trickle()
            outcome.others = others.opened
            // None of them ever completes its head: each is closed at its header deadline, however
            // steadily it trickles.
            outcome.othersClosed = try others.closedByServer(within: .seconds(10))
            return outcome
        }
        #expect(outcome.health.allSatisfy { $0.0 == 200 })
        #expect(outcome.scans.allSatisfy { $0.0 == 200 })
        let health = outcome.health.map(\.1)
        let scans = outcome.scans.map(\.1)
        #expect(Self.median(health) < .milliseconds(250), "GET /health took \(health)")
        #expect(Self.median(scans) < .milliseconds(250), "submit-scan took \(scans)")
        // One address keeps at most its limit; the other addresses keep all of theirs.
        #expect(outcome.keptFromOne <= 64)
        #expect(outcome.others == 500)
        #expect(outcome.keptFromOthers == outcome.others)
        #expect(outcome.othersClosed == outcome.others)
        #expect(try await acme.get("/health").status == 200)
        #expect(try await scenario.picked(on: acme)[bulk] == 5)
    }

    /// 600 idle connections from the address every client on the server's own host shares
    /// (127.0.0.1) do not shut out a client there that sends a request: the oldest idle connection
    /// makes room, never one whose request is being answered.
    @Test(arguments: ServerStoreKind.allCases)
    func sixHundredIdleLocalConnectionsDoNotShutOutALocalClient(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let scenario = try await PickingScenario.create(on: acme, bulkQty: 1000)
        let bulk = scenario.tasks[3]
        let token = try #require(ServerProcess.tokens["acme"])
        let port = server.port
        let (health, scan, earlier) = try await onOwnThread {
            // A client whose request is under way when the flood comes (its body still to send).
            let working = try RawConnection(port: port)
            let body =
                #"{"pickTaskId":"\#(bulk)","barcode":"4006381333931","scannedAt":"\#(actionTime)","workerId":"w"}"#
            let head =
                "POST /api/picking/submit-scan HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nIdempotency-Key: flood-0\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            working.send(head)
            let flood = try SlowClients(port: port, count: 600, from: ["127.0.0.1"])
            _ = flood
            working.send(body)
            let earlier = working.readResponse(timeout: .seconds(10))?.status
            let fresh = try RawConnection(port: port)
            let health = fresh.exchange("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").0?.status
            let scan = fresh.exchange(head.replacingOccurrences(of: "flood-0", with: "flood-1") + body).0?.status
            return (health, scan, earlier)
        }
        #expect(earlier == 200)
        #expect(health == 200)
        #expect(scan == 200)
        #expect(try await scenario.picked(on: acme)[bulk] == 2)
    }

    @Test func aBodyIsNotReadBeforeItsHeadPassesAndBodiesShareABudget() async throws {
        let server = try await ServerProcess(extraConfig: ["http": ["maxBufferedBodyBytes": 1_000_000]])
        let token = try #require(ServerProcess.tokens["acme"])
        // No token, a wrong route or a repeated length: refused from the head, before any body.
        for (head, status) in [
            ("POST /api/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n", 401),
            (
                "POST /api/nowhere HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 1000\r\n\r\n",
                404
            ),
            (
                "POST /api/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\n",
                400
            ),
            (
                "POST /api/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
                400
            ),
            (
                "POST /api/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 2000000\r\n\r\n",
                413
            ),
        ] {
            let port = server.port
            let reply = try await onOwnThread {
                let connection = try RawConnection(port: port)
                connection.send(head)
                return connection.readResponse(timeout: .seconds(5))
            }
            #expect(reply?.status == status, "\(head.prefix(40))")
            #expect(reply?.json["error"] != nil)
        }
        // Bodies share one budget (here 1,000,000 bytes): a body that would take the server over it
        // is refused with 503 (it may be retried), and its bytes are free again once it is answered.
        let upload = { @Sendable (body: String) in
            "POST /api/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        let port = server.port
        let big = #"{"orders":[]}"# + String(repeating: " ", count: 1_040_000)
        let refused = try await onOwnThread { try RawConnection(port: port).exchange(upload(big)).0 }
        #expect(refused?.status == 503)
        #expect(refused?.json["error"] as? String == "server_busy")
        let fits = #"{"orders":[]}"# + String(repeating: " ", count: 700_000)
        let statuses = try await onOwnThread {
            try (0..<3).map { _ in try RawConnection(port: port).exchange(upload(fits)).0?.status }
        }
        #expect(statuses == [200, 200, 200])
    }

    @Test(arguments: ServerStoreKind.allCases)
    func aGarbageRequestLineIsAnsweredAtOnce(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        for garbage in [
            "GARBAGE\r\n\r\n", "GET\r\n\r\n", "\u{1}\u{2}\u{3} / HTTP/1.1\r\n\r\n", "GET / HTTP/9.9\r\n\r\n",
        ] {
            let port = server.port
            let (reply, closed, took) = try await onOwnThread {
                let connection = try RawConnection(port: port)
                let start = ContinuousClock.now
                connection.send(garbage)
                let reply = connection.readResponse(timeout: .seconds(5))
                let closed = reply == nil && connection.closedByPeer(within: .seconds(5))
                return (reply, closed, ContinuousClock.now - start)
            }
            #expect(reply != nil || closed, "\(garbage.debugDescription) was neither answered nor closed")
            #expect(took < .seconds(5))
            if let reply { #expect((400..<600).contains(reply.status)) }
        }
        #expect(try await APIClient(server.baseURL, token: nil).get("/health").status == 200)
    }

    @Test func whatLibmicrohttpdRefusesItselfIsAnsweredInJSONAndHostIsRequired() async throws {
        let server = try await ServerProcess()
        let token = try #require(ServerProcess.tokens["acme"])
        for (request, status) in [
            ("GET /health HTTP/1.1\r\n\r\n", 400),
            ("GET /health HTTP/9.9\r\nHost: x\r\n\r\n", 505),
            ("GET /health HTTP/1.1\r\nHost: x\r\nno colon on this line\r\n\r\n", 400),
            (
                "POST /api/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
                400
            ),
            ("GET /" + String(repeating: "a", count: 40_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            (
                "GET /health HTTP/1.1\r\nHost: x\r\n"
                    + (0..<500).map { "X-Filler-\($0): \(String(repeating: "b", count: 100))\r\n" }.joined()
                    + "\r\n",
                431
            ),
        ] {
            let port = server.port
            let reply = try await onOwnThread {
                let connection = try RawConnection(port: port)
                connection.send(request)
                return connection.readResponse(timeout: .seconds(10))
            }
            #expect(reply?.status == status, "\(request.prefix(60).debugDescription)")
            #expect(reply?.headers["content-type"] == "application/json", "\(request.prefix(60).debugDescription)")
            #expect(reply?.json["error"] is String, "\(reply?.text.prefix(80) ?? "no answer")")
        }
        // HTTP/1.0 has no Host header to require.
        let port = server.port
        let old = try await onOwnThread { try RawConnection(port: port).exchange("GET /health HTTP/1.0\r\n\r\n").0 }
        #expect(old?.status == 200)
    }

    @Test func listensOnIPv6() async throws {
        let server = try await ServerProcess(extraConfig: ["listen": "[::1]:0"])
        #expect(server.baseURL.host == "::1" || server.baseURL.host == "[::1]")
        let port = server.port
        let reply = try await onOwnThread {
            try RawConnection(port: port, host: "::1").exchange("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").0
        }
        #expect(reply?.status == 200)
    }
}
