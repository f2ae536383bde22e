import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServing

/// The HTTP server in-process, with handlers the test controls: how it stops, and what it refuses
/// before a handler sees a request.
@Suite struct HTTPServerTests {
    /// Counts the requests the router has seen and lets the test wait for a number of them.
    final class Arrivals: Sendable {
        private let count = Mutex(0)
        func arrived() { count.withLock { $0 += 1 } }
        func wait(for expected: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while count.withLock({ $0 }) < expected {
                guard ContinuousClock.now < deadline else {
                    throw RawConnectionError("only \(count.withLock { $0 }) arrived")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    @Test func stoppingAnswersQueuedRequests503AndLetsTheRunningOneFinish() async throws {
        var limits = HTTPServerLimits()
        limits.workerThreads = 1
        let arrivals = Arrivals()
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0), limits: limits) { _ in
            arrivals.arrived()
            return .onWorker {
                running.signal()
                release.wait()
                return HTTPResponse(status: 200, body: Array("done".utf8))
            }
        }
        let connections = try (0..<5).map { _ in try RawConnection(port: server.address.port) }
        for connection in connections { connection.send("GET /work HTTP/1.1\r\nHost: x\r\n\r\n") }
        try await arrivals.wait(for: 5)
        try await onOwnThread { running.wait() }  // one is on the worker; four wait in the queue
        let stopped = Thread { server.stop() }
        stopped.start()
        let replies = try await onOwnThread {
            connections.map { $0.readResponse(timeout: .seconds(5)) }
        }
        #expect(replies.compactMap { $0?.status } == [503, 503, 503, 503])
        let waiting = zip(connections, replies).filter { $0.1 == nil }.map(\.0)
        #expect(waiting.count == 1)
        release.signal()
        let done = try await onOwnThread { waiting.first?.readResponse(timeout: .seconds(5)) }
        #expect(done?.text == "done")
    }

    /// What a watchdog looks at: how long the longest handler in hand has run, 0 once none runs.
    @Test func theLongestRunningHandlerIsMeasuredWhileItRunsAndZeroAfter() async throws {
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { _ in
            .onWorker {
                running.signal()
                release.wait()
                return HTTPResponse(status: 200)
            }
        }
        defer { server.stop() }
        #expect(server.longestRunningHandler == 0)
        let connection = try RawConnection(port: server.address.port)
        connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try await onOwnThread { running.wait() }
        let first = server.longestRunningHandler
        #expect(first > 0)
        let deadline = ContinuousClock.now + .seconds(5)
        while server.longestRunningHandler <= first, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(server.longestRunningHandler > first)  // it grows while the handler is stuck
        release.signal()
        let reply = try await onOwnThread { connection.readResponse(timeout: .seconds(5)) }
        #expect(reply?.status == 200)
        // The worker lets go of the job just after the answer is handed over.
        let after = ContinuousClock.now + .seconds(5)
        while server.longestRunningHandler != 0, ContinuousClock.now < after {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(server.longestRunningHandler == 0)
    }

    /// What a responder asks to run once its answer is sent (a log line, metrics) runs once, after the
    /// client has the answer; for a client that has gone away it still runs; a second answer to the
    /// same request is ignored, with what it asked to run.
    @Test func whatRunsWhenSentRunsOnceAfterTheAnswerEvenForAClientThatLeft() async throws {
        let arrivals = Arrivals()
        let waiting = Mutex<[String: HTTPResponder]>([:])
        let ran = Mutex<[String]>([])
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            .later { responder in
                waiting.withLock { $0[request.path] = responder }
                arrivals.arrived()
            }
        }
        defer { server.stop() }
        func answer(_ path: String) throws {
            let responder = try #require(waiting.withLock { $0[path] })
            responder.respond(HTTPResponse(status: 200, body: Array(path.utf8))) { ran.withLock { $0.append(path) } }
            responder.respond(HTTPResponse(status: 500)) { ran.withLock { $0.append(path + " again") } }
        }
        func waitUntilRan(_ expected: [String]) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while ran.withLock({ $0 }) != expected, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(ran.withLock { $0 } == expected)
        }

        let reader = try RawConnection(port: server.address.port)
        reader.send("GET /read HTTP/1.1\r\nHost: x\r\n\r\n")
        try await arrivals.wait(for: 1)
        #expect(ran.withLock { $0 }.isEmpty)  // nothing runs before there is an answer
        try answer("/read")
        let reply = try await onOwnThread { reader.readResponse(timeout: .seconds(5)) }
        #expect(reply?.status == 200)
        #expect(reply?.text == "/read")
        try await waitUntilRan(["/read"])

        let leaver = try RawConnection(port: server.address.port)
        leaver.send("GET /left HTTP/1.1\r\nHost: x\r\n\r\n")
        try await arrivals.wait(for: 2)
        shutdown(leaver.socket, Int32(SHUT_RDWR))  // the client gives up before the answer
        try answer("/left")
        try await waitUntilRan(["/read", "/left"])
    }

    /// A lone request whose answer comes while its polling thread waits (here: at once, from inside
    /// `start`) goes out without its connection being suspended; one whose answer comes long after
    /// is suspended and sent once it comes. Each is answered once, with what it asked to run after.
    @Test func aLoneLaterAnswerIsWaitedForBrieflyThenItsConnectionSuspended() async throws {
        let ran = Mutex<[String]>([])
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            .later { responder in
                let answer = { @Sendable in
                    responder.respond(HTTPResponse(status: 200, body: Array(request.path.utf8))) {
                        ran.withLock { $0.append(request.path) }
                    }
                }
                if request.path == "/at-once" {
                    answer()
                } else {
                    Thread {  // a thread of its own: the parallel suite can keep the shared pools busy
                        usleep(100_000)
                        answer()
                    }.start()
                }
            }
        }
        defer { server.stop() }
        let connection = try RawConnection(port: server.address.port)
        // Both exchanges on one thread, back to back: a task of the parallel suite may wait longer
        // than the server keeps an idle connection (`headerTimeoutSeconds`) between two awaits.
        let (quick, waitedAfterQuick, slow) = try await onOwnThread {
            connection.send("GET /at-once HTTP/1.1\r\nHost: x\r\n\r\n")
            let quick = connection.readResponse(timeout: .seconds(5))
            let waited = server.answersWaitedFor
            connection.send("GET /later HTTP/1.1\r\nHost: x\r\n\r\n")
            return (quick, waited, connection.readResponse(timeout: .seconds(5)))
        }
        #expect(quick?.text == "/at-once")
        #expect(waitedAfterQuick == 1)
        #expect(slow?.text == "/later")
        #expect(server.answersWaitedFor == 1)  // 100 ms is far past the wait: it was suspended
        let deadline = ContinuousClock.now + .seconds(10)
        while ran.withLock({ $0.count }) < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(ran.withLock { $0 } == ["/at-once", "/later"])
    }

    /// An answer taken while its polling thread waited still counts among those a stop waits for
    /// until it has gone out (until the request completes), as a suspended request's does: a stop
    /// that raced ahead would end the daemon, which then drops the answer it is handed.
    @Test func anAnswerTakenWhileWaitingIsWaitedForByAStopUntilSent() {
        let core = ServerCore(
            limits: HTTPServerLimits(), checkHead: nil, router: { _ in .now(HTTPResponse(status: 404)) },
            logger: .discarding)
        core.requestsOpen.store(1, ordering: .relaxed)
        let state = RequestState(
            head: HTTPRequest(method: "POST", path: "/write"), connection: nil, expectedBodyBytes: 0,
            arrivedAlone: true)
        // The connection is never suspended on this path, so no libmicrohttpd connection is needed.
        let unused = SuspendedConnection(pointer: OpaquePointer(bitPattern: 1)!)
        let outcome = core.dispatch(
            .later { $0.respond(HTTPResponse(status: 200)) }, state: state, connection: unused)
        #expect(outcome == .answered)
        #expect(state.takeAnswer()?.status == 200)
        #expect(core.answersNotYetSent == 1)
        #expect(state.isCountedUntilSent)  // `requestCompleted` counts it sent
        core.sentOne()
        #expect(core.answersNotYetSent == 0)
        core.stop()
    }

    /// The wait follows how long lone answers take: once they take longer than the wait, it is
    /// skipped (no spinning for nothing on a slow disk); once they are quick again, it comes back.
    @Test func theWaitIsSkippedWhileAnswersComeLaterThanItAndResumedAfter() {
        let wait = LoneAnswerWait(longest: .microseconds(1000))
        #expect(wait.limit == .microseconds(1000))
        for _ in 0..<4 { wait.came(after: .milliseconds(3)) }  // a slow disk
        #expect(wait.limit == .zero)
        for _ in 0..<8 { wait.came(after: .microseconds(200)) }  // quick again
        #expect(wait.limit == .microseconds(1000))
        #expect(LoneAnswerWait(longest: .zero).limit == .zero)  // turned off
    }

    /// A request open beside another is not waited for: here the second connection's answer is
    /// given at once, yet goes the suspended way while the first request is still open.
    @Test func aRequestOpenBesideAnotherIsNotWaitedFor() async throws {
        let held = Mutex<HTTPResponder?>(nil)
        let arrivals = Arrivals()
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            .later { responder in
                if request.path == "/held" {
                    held.withLock { $0 = responder }
                } else {
                    responder.respond(HTTPResponse(status: 200, body: Array(request.path.utf8)))
                }
                arrivals.arrived()
            }
        }
        defer { server.stop() }
        let first = try RawConnection(port: server.address.port)
        first.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await arrivals.wait(for: 1)
        let second = try RawConnection(port: server.address.port)
        second.send("GET /beside HTTP/1.1\r\nHost: x\r\n\r\n")
        let beside = try await onOwnThread { second.readResponse(timeout: .seconds(5)) }
        #expect(beside?.text == "/beside")
        #expect(server.answersWaitedFor == 0)
        held.withLock { $0 }?.respond(HTTPResponse(status: 200, body: Array("/held".utf8)))
        let answer = try await onOwnThread { first.readResponse(timeout: .seconds(5)) }
        #expect(answer?.text == "/held")
    }

    /// The common case: the answer comes from another thread while the polling thread waits (or
    /// just after it gave up, or long after): every answer arrives once, in order, with what it
    /// asked to run.
    @Test func answersFromAnotherThreadArriveOnceWhicheverSideWins() async throws {
        let ran = Mutex<[String]>([])
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            .later { responder in
                let delay = UInt32(request.path.dropFirst()) ?? 0  // microseconds
                Thread {
                    if delay > 0 { usleep(delay) }
                    responder.respond(HTTPResponse(status: 200, body: Array(request.path.utf8))) {
                        ran.withLock { $0.append(request.path) }
                    }
                }.start()
            }
        }
        defer { server.stop() }
        let connection = try RawConnection(port: server.address.port)
        let paths = (0..<60).map { "/\([0, 100, 500, 900, 1100, 3000][$0 % 6])" }
        // All on one thread, back to back (see the test above): the connection never idles.
        let replies = try await onOwnThread {
            paths.map { path in
                connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                return connection.readResponse(timeout: .seconds(5))?.text
            }
        }
        #expect(replies == paths)
        let deadline = ContinuousClock.now + .seconds(10)
        while ran.withLock({ $0.count }) < paths.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(ran.withLock { $0 } == paths)
    }

    /// A request comes alone when the head before it came on the same connection, or long enough
    /// before; one right after another client's does not (its answer is not waited for).
    @Test func aRequestComesAloneUnlessAnotherClientJustSentOne() {
        let heads = HeadArrivals()
        let gap = HeadArrivals.quietGap
        #expect(heads.arrived(on: 1, at: 1_000_000_000))  // the first of all
        #expect(heads.arrived(on: 1, at: 1_000_000_100))  // the same client again, at once
        #expect(!heads.arrived(on: 2, at: 1_000_000_200))  // another client, right after
        #expect(!heads.arrived(on: 1, at: 1_000_000_300))  // and back: two are sending
        #expect(heads.arrived(on: 2, at: 1_000_000_300 + gap + 1))  // after a quiet gap
    }

    /// The two sides of a brief wait: exactly one of the answer's hand-over and the polling
    /// thread's giving up succeeds, whichever comes first; a wait with no answer ends at its limit.
    @Test func anAnswerIsHandedOverOrTheWaitGivenUpNeverBoth() {
        let answeredFirst = AnswerWaiter()
        #expect(answeredFirst.handOver())
        #expect(answeredFirst.waitForAnswer(upTo: .zero))
        #expect(!answeredFirst.giveUp())  // the polling thread must resume the connection itself

        let gaveUpFirst = AnswerWaiter()
        let start = ContinuousClock.now
        #expect(!gaveUpFirst.waitForAnswer(upTo: .microseconds(200)))
        #expect(ContinuousClock.now - start >= .microseconds(200))
        #expect(gaveUpFirst.giveUp())
        #expect(!gaveUpFirst.handOver())  // the responder resumes the suspended connection
    }

    @Test func aHeadRefusalComesBeforeTheBodyIsRead() async throws {
        let bodies = Mutex<[Int]>([])
        let server = try HTTPServer(
            listen: ListenAddress(host: "127.0.0.1", port: 0),
            checkHead: { head in
                guard let allowed = head.header("x-allowed") else { return .json(401, Array(#"{"error":"no"}"#.utf8)) }
                head.admission = "admitted as \(allowed)"
                return nil
            },
            router: { request in
                bodies.withLock { $0.append(request.body.count) }
                // What the head check learned reaches the router with the whole request.
                return .now(HTTPResponse(status: request.admission as? String == "admitted as 1" ? 200 : 500))
            })
        // The body is never sent: the refusal must not wait for it.
        let port = server.address.port
        let (refused, allowed) = try await onOwnThread {
            let refused = try RawConnection(port: port)
            refused.send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
            let allowed = try RawConnection(port: port)
            return (
                refused.readResponse(timeout: .seconds(5))?.status,
                allowed.exchange("POST /x HTTP/1.1\r\nHost: x\r\nX-Allowed: 1\r\nContent-Length: 3\r\n\r\nabc").0?
                    .status
            )
        }
        #expect(refused == 401)
        #expect(allowed == 200)
        #expect(bodies.withLock { $0 } == [3])
        server.stop()
    }
}
