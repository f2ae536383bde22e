import Foundation
import Queue
import ScanPickClient
import TestSupport
import Testing

/// The drainer against a real `scanpick serve` (and a fault proxy in front of it).
@Suite struct DrainerTests {
    @Test(arguments: ServerStoreKind.allCases)
    func tapsQueuedOfflineAreDeliveredOnceInOrderWhenTheServerReturns(store: ServerStoreKind) async throws {
        let fixture = try await QueueFixture(store: store)
        let drainer = fixture.drainer(to: fixture.server.baseURL)
        try await fixture.server.stop()
        let ids = [
            try fixture.pick(0, qty: 2), try fixture.pick(1), try fixture.pick(0),
            try fixture.queue.enqueue(
                .setQty(org: "acme", pickTaskId: fixture.scenario.tasks[1], location: nil, from: 1, to: 2, worker: "w")),
            try fixture.pick(2),
        ]
        let offline = try await drainer.drainPass()
        guard case .transient = offline.stop else {
            throw TestFailure("expected a transport failure, got \(offline.stop)")
        }
        #expect(try fixture.queue.counts().pending == 5)

        try await fixture.server.start()
        var delivered: [Int] = []
        fixture.clock.advance(120)
        let online = try await drainer.drainPass { event in
            if case .sent(let action, _) = event { delivered.append(action.id) }
        }
        #expect(online.sent == 5)
        #expect(online.stop == .empty)
        #expect(delivered == ids)
        #expect(try await fixture.picked() == [3, 2, 1])
        // A second pass sends nothing again.
        #expect(try await drainer.drainPass().sent == 0)
        #expect(try await fixture.picked() == [3, 2, 1])
    }

    @Test(arguments: ServerStoreKind.allCases)
    func aRefusedActionGoesDeadAndTheLineMovesOn(store: ServerStoreKind) async throws {
        let fixture = try await QueueFixture(store: store)
        let drainer = fixture.drainer()
        _ = try fixture.pick(0)
        let refused = try fixture.pick(2, qty: 5)  // C2 needs only 1
        _ = try fixture.pick(1)
        let pass = try await drainer.drainPass()
        #expect(pass.sent == 2)
        #expect(pass.dead == 1)
        let dead = try #require(try fixture.queue.action(refused))
        #expect(dead.state == .dead)
        #expect(dead.lastStatus == 422)
        #expect(dead.lastError?.hasPrefix("over_pick:") == true)
        #expect(try await fixture.picked() == [1, 1, 0])

        // Support retries it: still refused. After the order is raised on the server, it goes through.
        try fixture.queue.retry(refused, by: "support-jo")
        _ = try await drainer.drainPass()
        #expect(try fixture.queue.action(refused)?.state == .dead)
        #expect(try fixture.queue.action(refused)?.tries == 2)
        _ = try await fixture.acme.upsertOrder(
            "o1", carrier: "DHL", zone: "A", shipBy: "2026-12-01",
            line: ["id": "l2", "sku": "SKU-C2", "location": "C2", "barcode": "96385074", "qty": 5])
        try fixture.queue.retry(refused, by: "support-jo")
        #expect(try await drainer.drainPass().sent == 1)
        #expect(try await fixture.picked() == [1, 1, 5])
        #expect(try fixture.queue.log().map(\.event) == ["retry", "retry"])
    }

    @Test func clearingADeadLetterIsRecordedNotSilent() async throws {
        let fixture = try await QueueFixture()
        let refused = try fixture.pick(2, qty: 9)
        _ = try await fixture.drainer().drainPass()
        #expect(throws: QueueError.notDead(refused + 1, .pending)) {
            let pending = try fixture.pick(0)
            try fixture.queue.clear(pending, by: "x")
        }
        try fixture.queue.clear(refused, by: "support-jo")
        #expect(try fixture.queue.action(refused) == nil)
        let entry = try #require(try fixture.queue.log().first)
        #expect(entry.event == "clear")
        #expect(entry.actor == "support-jo")
        #expect(entry.actionId == refused)
        #expect(entry.detail.contains(#""lastStatus":422"#))
        #expect(entry.detail.contains("idempotencyKey"))
        #expect(throws: QueueError.noSuchAction(999)) { try fixture.queue.retry(999, by: "x") }
    }

    @Test func transientFailuresBackOffOnTheClockAndHonourRetryAfter() async throws {
        let fixture = try await QueueFixture()
        // A patient drainer for the answers, an impatient one (the same queue and clock) for the
        // stall: a loaded machine once took more than a 1 s timeout to pass on a real answer.
        let drainer = fixture.drainer(timeout: 10)
        let impatient = fixture.drainer(timeout: 1)
        let id = try fixture.pick(0)
        // Warm the proxy's own connection to the server, so its first forward is not the slow one.
        #expect(try await APIClient(fixture.proxy.url, token: nil).get("/health").status == 200)
        let start = fixture.clock.now.timeIntervalSince1970
        fixture.proxy.script([.status(503), .status(429, retryAfter: "7"), .stall(seconds: 2.5), .status(500)])

        // 503: the first retry waits the initial 2 s (jitter pinned to its top).
        guard case .transient = try await drainer.drainPass().stop else { throw TestFailure("503 must be transient") }
        var action = try #require(try fixture.queue.action(id))
        #expect(action.state == .pending)
        #expect(action.tries == 1)
        #expect(action.lastStatus == 503)
        #expect(action.nextAttemptAt == Date(timeIntervalSince1970: start + 2))

        // Not due yet: nothing is sent.
        fixture.clock.advance(1)
        #expect(try await drainer.drainPass().stop == .notDue(until: Date(timeIntervalSince1970: start + 2)))
        #expect(fixture.proxy.log.count == 2)

        // 429 with Retry-After: 7 beats the 4 s backoff.
        fixture.clock.advance(1)
        _ = try await drainer.drainPass()
        action = try #require(try fixture.queue.action(id))
        #expect(action.lastStatus == 429)
        #expect(action.nextAttemptAt == Date(timeIntervalSince1970: start + 2 + 7))

        // A server that takes the request and never answers in time: a timeout, backoff 8 s.
        fixture.clock.advance(7)
        _ = try await impatient.drainPass()
        action = try #require(try fixture.queue.action(id))
        #expect(action.lastStatus == nil)
        #expect(action.lastError?.contains("timed out") == true)
        #expect(action.nextAttemptAt == Date(timeIntervalSince1970: start + 9 + 8))

        // 500, then it goes through; it never expired and counted once.
        fixture.clock.advance(8)
        _ = try await drainer.drainPass()
        #expect(try fixture.queue.action(id)?.nextAttemptAt == Date(timeIntervalSince1970: start + 17 + 16))
        fixture.clock.advance(16)
        #expect(try await drainer.drainPass().sent == 1)
        #expect(try fixture.queue.action(id)?.state == .sent)
        #expect(try fixture.queue.action(id)?.tries == 5)
        #expect(try await fixture.picked()[0] == 1)
    }

    @Test func aClockSetBackNeverStallsTheQueue() async throws {
        let fixture = try await QueueFixture()
        let drainer = fixture.drainer()
        let id = try fixture.pick(0)
        fixture.proxy.script([.status(503)])
        _ = try await drainer.drainPass()
        // The clock is corrected a day back: the stored next try now lies a day and 2 s ahead.
        fixture.clock.advance(-86_400)
        let start = fixture.clock.now
        #expect(try await drainer.drainPass().stop == .notDue(until: start.addingTimeInterval(60)))
        // Within the 60 s cap (read from the queue's own row), not a day later, it goes.
        fixture.clock.advance(60)
        #expect(try await drainer.drainPass().sent == 1)
        #expect(try fixture.queue.action(id)?.state == .sent)
    }

    @Test func aTransientFailureStopsThePassAndKeepsTheOrder() async throws {
        let fixture = try await QueueFixture()
        let drainer = fixture.drainer()
        let first = try fixture.pick(0)
        let second = try fixture.pick(1)
        fixture.proxy.script([.status(502)])
        let pass = try await drainer.drainPass()
        #expect(pass.sent == 0)
        #expect(try fixture.queue.action(second)?.tries == 0)
        fixture.clock.advance(60)
        var order: [Int] = []
        _ = try await drainer.drainPass { if case .sent(let action, _) = $0 { order.append(action.id) } }
        #expect(order == [first, second])
    }

    @Test func twoDrainersOnOneDatabaseNeverSendTheSameAction() async throws {
        let fixture = try await QueueFixture(bulkQty: 1000)
        for _ in 0..<30 { _ = try fixture.pick(3) }
        fixture.proxy.script(Array(repeating: .holdAnswer(seconds: 0.02), count: 30))
        // A second queue object is a second SQLite connection, as another process would have.
        let other = try ActionQueue(path: fixture.queue.database.path)
        let transport = ScanPickHTTPClient(server: fixture.proxy.url, tokens: ["acme": QueueFixture.token], timeout: 5)
        let drainers = [
            fixture.drainer(), Drainer(queue: other, transport: transport, backoff: BackoffPolicy(initial: 2, cap: 60)),
        ]
        let passes = try await withThrowingTaskGroup(of: DrainPass.self) { group in
            for round in 0..<6 {
                let drainer = drainers[round % 2]
                group.addTask { try await drainer.drainPass() }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(passes.contains { $0.stop == .anotherDrainer })
        #expect(fixture.proxy.overlaps == 0)
        #expect(try fixture.queue.counts().sent == 30)
        #expect(try await fixture.picked()[3] == 30)
    }

    @Test func aWrongBaseURLPausesTheQueueAndNothingGoesDead() async throws {
        let fixture = try await QueueFixture()
        let ids = [try fixture.pick(0), try fixture.pick(1)]
        // The server answers 404 for a route that does not exist under a wrong base URL.
        let wrong = fixture.drainer(to: fixture.proxy.url.appendingPathComponent("v1"))
        let pass = try await wrong.drainPass()
        guard case .paused(let attention, _) = pass.stop else {
            throw TestFailure("expected a pause, got \(pass.stop)")
        }
        #expect(attention.code == "no_such_route")
        #expect(attention.message.contains("check `server` in the station config"))
        for id in ids {
            let action = try #require(try fixture.queue.action(id))
            #expect(action.state == .pending)
            #expect(action.tries == 0)
        }
        #expect(try fixture.queue.counts().dead == 0)
        #expect(try fixture.queue.pause()?.attention.code == "no_such_route")

        // While paused, passes wait instead of sending again.
        let sent = fixture.proxy.log.count
        guard case .paused = try await wrong.drainPass().stop else { throw TestFailure("expected to stay paused") }
        #expect(fixture.proxy.log.count == sent)

        // The config is corrected (the station resumes the queue): each action goes once.
        try fixture.queue.resume()
        let fixed = try await fixture.drainer().drainPass()
        #expect(fixed.sent == 2)
        #expect(try fixture.queue.pause() == nil)
        #expect(try await fixture.picked() == [1, 1, 0])
    }

    @Test func aPausedOrganisationHoldsBackOnlyItsOwnActions() async throws {
        let fixture = try await QueueFixture()
        let drainer = fixture.drainer()  // a token for acme only
        let first = try fixture.pick(0)
        let globex = try fixture.queue.enqueue(
            .pick(org: "globex", pickTaskId: "g1", location: nil, qty: 1, worker: "w"))
        let second = try fixture.pick(1)

        var sent: [Int] = []
        let pass = try await drainer.drainPass { if case .sent(let action, _) = $0 { sent.append(action.id) } }
        #expect(sent == [first, second])
        guard case .paused(let attention, _) = pass.stop else {
            throw TestFailure("expected a pause, got \(pass.stop)")
        }
        #expect(attention.code == "no_token")
        #expect(try fixture.queue.pauses().map(\.org) == ["globex"])
        #expect(try fixture.queue.action(globex)?.state == .pending)
        #expect(try fixture.queue.action(globex)?.tries == 0)

        // Later work of acme goes on while globex's waits for its pause to end.
        let third = try fixture.pick(2)
        fixture.clock.advance(1)
        let next = try await drainer.drainPass()
        #expect(next.sent == 1)
        #expect(try fixture.queue.action(third)?.state == .sent)
        #expect(try fixture.queue.pauses().map(\.org) == ["globex"])

        // Support parks the stranded action: it is a dead letter to retry or clear, and the pause ends.
        #expect(throws: QueueError.notDead(globex, .pending)) { try fixture.queue.clear(globex, by: "support-jo") }
        try fixture.queue.park(globex, by: "support-jo")
        let parked = try #require(try fixture.queue.action(globex))
        #expect(parked.state == .dead)
        #expect(parked.lastError?.contains("parked by support-jo") == true)
        #expect(try fixture.queue.pauses().isEmpty)
        #expect(try fixture.queue.log().first?.event == "park")
        #expect(try await fixture.picked() == [1, 1, 1])
    }

    @Test func aWrongTokenPausesAndTheNextAnswerLiftsThePause() async throws {
        let fixture = try await QueueFixture()
        let id = try fixture.pick(0)
        let transport = ScanPickHTTPClient(server: fixture.proxy.url, tokens: ["acme": "wrong"], timeout: 5)
        let wrong = Drainer(queue: fixture.queue, transport: transport, backoff: BackoffPolicy(initial: 2, cap: 60))
        guard case .paused(let attention, _) = try await wrong.drainPass().stop else {
            throw TestFailure("a 401 must pause the queue")
        }
        #expect(attention.code == "unauthorized")
        #expect(attention.message.hasPrefix("the server refused this station's token for acme (401)"))
        #expect(try fixture.queue.action(id)?.state == .pending)
        // A person drains by hand with the right token: the answer lifts the pause.
        #expect(try await fixture.drainer().drainPass(honouringBackoff: false).sent == 1)
        #expect(try fixture.queue.pause() == nil)
    }

    /// An action queued with a worker id the server refuses (by a station whose config was never
    /// checked for it) pauses the queue instead of going dead; a station's config is now checked.
    @Test(arguments: ServerStoreKind.allCases)
    func aWorkerIdTheServerRefusesPausesInsteadOfDeadLettering(store: ServerStoreKind) async throws {
        let fixture = try await QueueFixture(store: store)
        let id = try fixture.queue.enqueue(
            .pick(org: "acme", pickTaskId: fixture.scenario.tasks[0], location: "A1", qty: 1, worker: "w\u{202E}3"))
        let pass = try await fixture.drainer().drainPass()
        guard case .paused(let attention, _) = pass.stop else {
            throw TestFailure("expected a pause, got \(pass.stop)")
        }
        #expect(attention.code == "invalid_worker")
        #expect(attention.message.contains("workerId must not contain control characters"))
        #expect(try fixture.queue.action(id)?.state == .pending)
        #expect(try fixture.queue.counts().dead == 0)

        // A station with such a worker in its config does not start, nor queue a tap.
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: #""worker-test""#, with: #""""#).write(
            toFile: config, atomically: false, encoding: .utf8)
        let tap = try await ProcessRunner.scanpick([
            "tap", "pick", fixture.scenario.tasks[1], "--org", "acme", "--config", config,
        ])
        #expect(tap.status != 0)
        #expect(tap.standardError.contains(#""worker" must not be empty"#), "\(tap.standardError)")
        #expect(try fixture.queue.counts().pending == 1)
    }

    /// A station whose clock is far off (a dead RTC battery at boot) is told so by the server: the
    /// whole queue pauses with what to do, nothing goes dead or counts, and once the clock is set
    /// the actions go.
    @Test(arguments: ServerStoreKind.allCases)
    func aWrongStationClockPausesTheQueueUntilItIsSet(store: ServerStoreKind) async throws {
        let fixture = try await QueueFixture(store: store)
        let ids = [try fixture.pick(0), try fixture.pick(1)]
        let booted = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
        let transport = ScanPickHTTPClient(
            server: fixture.proxy.url, tokens: ["acme": QueueFixture.token], timeout: 5, now: { booted })
        let wrong = Drainer(queue: fixture.queue, transport: transport, backoff: BackoffPolicy(initial: 2, cap: 60))
        let pass = try await wrong.drainPass()
        guard case .paused(let attention, _) = pass.stop else {
            throw TestFailure("expected a pause, got \(pass.stop)")
        }
        #expect(attention.code == "clock_skew")
        #expect(attention.message.contains("set this station's clock (NTP"))
        #expect(try fixture.queue.pauses().map(\.org) == [nil])
        for id in ids { #expect(try fixture.queue.action(id)?.tries == 0) }
        #expect(try fixture.queue.counts().dead == 0)
        #expect(try await fixture.picked() == [0, 0, 0])
        #expect(fixture.proxy.log.filter { $0.hasPrefix("POST ") }.count == 1)  // the pause held the second back

        // NTP sets the clock: the next look sends both, once.
        let sent = try await fixture.drainer().drainPass(honouringBackoff: false).sent
        #expect(sent == 2)
        #expect(try fixture.queue.pauses().isEmpty)
        #expect(try await fixture.picked() == [1, 1, 0])
    }

    /// A connection dropped during the TLS handshake is the network's trouble: retried, never a
    /// pause that waits for a person (only a certificate or protocol failure is the setup's).
    @Test func aConnectionCutDuringTheTLSHandshakeIsTransientNotAPause() async throws {
        let fixture = try await QueueFixture()
        let id = try fixture.pick(0)
        let listener = try RawListener(reply: nil)
        defer { listener.stop() }
        let server = try #require(URL(string: "https://127.0.0.1:\(listener.port)"))
        let pass = try await fixture.drainer(to: server).drainPass()
        guard case .transient(let reason, _) = pass.stop else {
            throw TestFailure("expected a transient failure, got \(pass.stop)")
        }
        #expect(try fixture.queue.pauses().isEmpty, "\(reason)")
        #expect(try fixture.queue.action(id)?.state == .pending)
        #expect(try fixture.queue.action(id)?.tries == 1)
    }

    /// A server certificate the station does not trust is the setup's fault: the queue pauses.
    @Test func anUntrustedServerCertificatePausesTheQueue() async throws {
        let fixture = try await QueueFixture()
        let id = try fixture.pick(0)
        let certificates = try await TestCertificates()
        let https = try await ServerProcess(extraConfig: [
            "tls": ["certificate": certificates.serverCertificate, "key": certificates.serverKey]
        ])
        #expect(https.baseURL.scheme == "https")
        let pass = try await fixture.drainer(to: https.baseURL).drainPass()
        guard case .paused(let attention, _) = pass.stop else {
            throw TestFailure("expected a pause, got \(pass.stop)")
        }
        #expect(attention.code == "tls")
        #expect(attention.message.lowercased().contains("certificate"))
        #expect(try fixture.queue.action(id)?.tries == 0)
    }

    /// TLS spoken to a plain-HTTP server is the setup's fault: the queue pauses. The listener answers
    /// in plain HTTP whatever the ClientHello's random bytes hold (a real HTTP server may instead
    /// wait for a line end that never comes and drop the connection: a cut, which is transient).
    @Test func aTLSFailurePausesTheQueue() async throws {
        let fixture = try await QueueFixture()
        let id = try fixture.pick(0)
        let listener = try RawListener(reply: "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        defer { listener.stop() }
        let url = try #require(URL(string: "https://127.0.0.1:\(listener.port)"))
        let pass = try await fixture.drainer(to: url).drainPass()
        guard case .paused(let attention, _) = pass.stop else {
            throw TestFailure("expected a pause, got \(pass.stop)")
        }
        #expect(attention.code == "tls")
        #expect(try fixture.queue.action(id)?.tries == 0)
    }
}

/// A TCP listener on loopback that reads what a client says first, then either drops the
/// connection (`reply` nil: a TLS handshake cut by the network, a Wi-Fi roam, a restarting proxy)
/// or answers `reply` in the clear (a plain server where TLS was expected) and closes gracefully.
final class RawListener: Sendable {
    let port: UInt16
    private let descriptor: Int32

    init(reply: String?) throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listening, pointer, length) == 0 && listen(listening, 16) == 0
                    && getsockname(listening, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listening)
            throw TestFailure("cannot listen: \(errno)")
        }
        descriptor = listening
        port = UInt16(bigEndian: address.sin_port)
        let answer = reply.map { Array($0.utf8) }
        Thread.detachNewThread {
            while true {
                let client = accept(listening, nil, nil)
                guard client >= 0 else { return }  // stopped
                var timeout = timeval(tv_sec: 5, tv_usec: 0)  // a client that never closes cannot wedge it
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(client, &buffer, buffer.count)  // the ClientHello
                if let answer {
                    _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                    // Half-close and wait for the client's close, so the answer is never lost to a reset.
                    shutdown(client, Int32(SHUT_WR))
                    while read(client, &buffer, buffer.count) > 0 {}
                }
                close(client)
            }
        }
    }

    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Beyond the server's idempotency horizon: parked for support, and sent again only as new.
@Suite struct IdempotencyHorizonDrainTests {
    @Test func anActionTooOldToDeduplicateIsParkedAndSupportResendsItAsNew() async throws {
        let fixture = try await QueueFixture(
            serverConfig: ["idempotencyRetentionDays": 1, "idempotencyMarginHours": 1])
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        // A tap from two days ago whose first answer was lost (the station still has it pending).
        let old = try fixture.queue.enqueue(
            .pick(
                org: "acme", pickTaskId: fixture.scenario.tasks[0], location: "A1", qty: 1, worker: "w",
                at: Date().addingTimeInterval(-2 * 86_400)))
        let before = try #require(try fixture.queue.action(old))
        let drained = try await ProcessRunner.scanpick(["drain", "--config", config])
        #expect(drained.standardOutput.contains("0 sent, 1 dead"))
        let dead = try #require(try fixture.queue.action(old))
        #expect(dead.state == .dead)
        #expect(dead.lastStatus == 422)
        #expect(dead.lastError?.hasPrefix("too_old_to_deduplicate:") == true)
        #expect(dead.lastError?.contains("scanpick queue retry \(old) --as-new") == true)
        #expect(dead.lastError?.contains("scanpick queue clear \(old)") == true)
        #expect(try await fixture.picked() == [0, 0, 0])

        // Support compared with the server (not counted) and resends it under a fresh key.
        let retried = try await ProcessRunner.scanpick([
            "queue", "retry", "\(old)", "--as-new", "--by", "support-jo", "--config", config,
        ])
        #expect(retried.status == 0, "\(retried.standardError)")
        let renewed = try #require(try fixture.queue.action(old))
        #expect(renewed.state == .pending)
        #expect(renewed.idempotencyKey != before.idempotencyKey)
        let entry = try #require(try fixture.queue.log().first)
        #expect(entry.event == "retry-as-new")
        #expect(entry.actor == "support-jo")
        #expect(entry.detail.contains(before.idempotencyKey))
        #expect(entry.detail.contains(renewed.idempotencyKey))
        #expect(try await ProcessRunner.scanpick(["drain", "--config", config]).status == 0)
        #expect(try fixture.queue.action(old)?.state == .sent)
        #expect(try await fixture.picked() == [1, 0, 0])
    }
}
