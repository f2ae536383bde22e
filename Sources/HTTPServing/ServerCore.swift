internal import CMicroHTTPD
import Dispatch
import Foundation
import Logging
import Synchronization

/// What libmicrohttpd's callbacks reach through their context pointer: the router, the limits, the
/// worker pool, the connection deadlines, and the count of suspended requests still owed an answer
/// (the server may only stop once it is zero).
///
/// The state of one request is in `RequestState.swift`, the streams being sent in
/// `OpenStreams.swift`, and how a polling thread waits for a lone answer in `LoneAnswerWait.swift`.
final class ServerCore: Sendable {
    let limits: HTTPServerLimits
    let router: HTTPServer.Router
    /// Where libmicrohttpd's own sentences go (`http` warnings).
    let logger: Logger
    let deadlines: ConnectionDeadlines
    let lingering: LingeringCloses
    let bodyBudget: BodyBudget
    let checkHead: HTTPServer.HeadCheck?
    /// The streamed responses being sent (each ended when the server stops).
    let streams = OpenStreams()
    private let workers: WorkerPool
    private let bulkWorkers: WorkerPool
    private let suspended = Mutex(SuspendedRequests())
    /// Requests whose head has arrived and which have not completed (answered and sent, or aborted).
    let requestsOpen = Atomic(0)
    /// libmicrohttpd's messages held back while the daemon starts (nil once it has).
    private let heldMessages = Mutex<[String]?>(nil)

    private struct SuspendedRequests {
        /// Requests suspended and not yet given their answer (none may be left when the daemon stops).
        var count = 0
        /// Requests suspended whose answer has not finished going out (sent, or the client gone).
        var unsent = 0
        var stopping = false
        var allAnswered: DispatchSemaphore?
        var allSent: DispatchSemaphore?
    }

    init(
        limits: HTTPServerLimits, checkHead: HTTPServer.HeadCheck?, router: @escaping HTTPServer.Router,
        logger: Logger
    ) {
        self.limits = limits
        self.checkHead = checkHead
        self.router = router
        self.logger = logger
        bodyBudget = BodyBudget(bytes: limits.maxBufferedBodyBytes)
        loneAnswers = LoneAnswerWait(longest: .microseconds(limits.loneAnswerWaitMicroseconds))
        bulkWorkers = WorkerPool(
            threads: limits.bulkWorkerThreads, maxQueued: limits.maxQueuedRequests, name: "http-bulk")
        deadlines = ConnectionDeadlines(limits: limits)
        lingering = LingeringCloses(limits: limits)
        workers = WorkerPool(threads: limits.workerThreads, maxQueued: limits.maxQueuedRequests, name: "http-worker")
    }

    /// How long the longest request handler now running has run, in nanoseconds (0: none runs).
    var longestRunningHandler: UInt64 { max(workers.longestRunningJob, bulkWorkers.longestRunningJob) }

    /// What became of a request handed to ``dispatch(_:state:connection:)``.
    enum Dispatched: Equatable {
        /// Its connection waits suspended for the answer.
        case suspended
        /// Its answer came while the polling thread waited for it: in `state`, to send now.
        case answered
        /// The server is stopping: nothing was started and the connection is as it was.
        case refused
    }

    /// Suspends `connection` until `answer` (work on a worker, or a responder called later) has
    /// produced its response. An answer that comes from elsewhere (``HTTPAnswer/later(_:)``) to a
    /// request that came alone (``HeadArrivals``) and has no other request open beside it is
    /// first waited for on this polling thread (``LoneAnswerWait``): a lone write then costs no
    /// suspension, and no wake-up of a sleeping polling thread to send its answer. Either way the
    /// request counts among those a stop waits for until its answer has gone out.
    func dispatch(_ answer: HTTPAnswer, state: RequestState, connection: SuspendedConnection) -> Dispatched {
        let admitted = suspended.withLock { suspended in
            guard !suspended.stopping else { return false }
            suspended.count += 1
            suspended.unsent += 1
            return true
        }
        guard admitted else { return .refused }
        state.markCountedUntilSent()
        if state.arrivedAlone, requestsOpen.load(ordering: .relaxed) == 1, case .later(let start) = answer {
            let waiter = AnswerWaiter()
            start(HTTPResponder(core: self, state: state, connection: connection, waiter: waiter))
            if waiter.waitForAnswer(upTo: loneAnswers.limit) {
                loneAnswers.waitedFor.add(1, ordering: .relaxed)
                finishedOne()  // answered; `requestCompleted` counts it sent once it has gone out
                return .answered
            }
            connection.suspend()
            if !waiter.giveUp() {  // it came between the wait and the suspension
                connection.resume()
                finishedOne()
            }
            return .suspended
        }
        connection.suspend()
        let responder = HTTPResponder(core: self, state: state, connection: connection, waiter: nil)
        switch answer {
        case .now(let response):
            responder.respond(response)
        case .onWorker(let work):
            let job = WorkerPool.Job(run: { responder.respond(work()) }, cancel: { responder.respond(Self.busy) })
            if !workers.submit(job) { responder.respond(Self.busy) }
        case .onBulkWorker(let work):
            let job = WorkerPool.Job(run: { responder.respond(work()) }, cancel: { responder.respond(Self.busy) })
            if !bulkWorkers.submit(job) { responder.respond(Self.busy) }
        case .later(let start):
            start(responder)
        }
        return .suspended
    }

    /// How long lone answers take to come, and so whether a polling thread waits for the next.
    let loneAnswers: LoneAnswerWait

    /// Which connection sent the last request head, to tell a request that came alone.
    let heads = HeadArrivals()

    /// Holds libmicrohttpd's messages back until ``releaseMessages(log:)``.
    func holdMessages() { heldMessages.withLock { $0 = [] } }

    /// Stops holding messages back; logs the held ones if `log`, and returns them.
    func releaseMessages(log shouldLog: Bool) -> [String] {
        let held = heldMessages.withLock { $0.take() } ?? []
        if shouldLog { held.forEach { Self.say(logger, $0) } }
        return held
    }

    /// One of libmicrohttpd's messages: logged, or held while the daemon starts.
    func say(_ message: String) {
        let held = heldMessages.withLock { held -> Bool in
            guard held != nil else { return false }
            held?.append(message)
            return true
        }
        if !held { Self.say(logger, message) }
    }

    /// Logs one of libmicrohttpd's sentences (a refused connection, a malformed request), or the
    /// server's own about its limits, as an `http` warning.
    static func say(_ logger: Logger, _ message: String) { logger.warning("http", ["message": .string(message)]) }

    /// Hands a suspended request its response (the first time only) and resumes its connection;
    /// `whenSent` runs once the request completes (see ``HTTPResponder/respond(_:whenSent:)``).
    func respond(
        _ response: HTTPResponse, state: RequestState, connection: SuspendedConnection, waiter: AnswerWaiter?,
        whenSent: (@Sendable () -> Void)? = nil
    ) {
        guard state.answer(response, whenSent: whenSent) else { return }
        if let waiter {
            loneAnswers.came(after: waiter.age)
            if waiter.handOver() { return }  // the polling thread waiting for it sends it
        }
        connection.resume()
        finishedOne()
    }

    /// Refuses new work, answers 503 to requests still waiting for a worker, waits until every
    /// request being worked on has been answered and (for up to ``sendingGrace``) until those
    /// answers have gone out, and ends the workers and the deadline sweep.
    func stop() {
        suspended.withLock { $0.stopping = true }
        streams.endAll()  // a suspended stream is woken to end: libmicrohttpd must not stop with it suspended
        workers.cancelQueued()
        bulkWorkers.cancelQueued()
        let (answered, sent): (DispatchSemaphore?, DispatchSemaphore?) = suspended.withLock { suspended in
            if suspended.count > 0 { suspended.allAnswered = DispatchSemaphore(value: 0) }
            if suspended.unsent > 0 { suspended.allSent = DispatchSemaphore(value: 0) }
            return (suspended.allAnswered, suspended.allSent)
        }
        answered?.wait()
        // A client that does not read its answer must not hold the stop for ever.
        _ = sent?.wait(timeout: .now() + Self.sendingGrace)
        workers.stop()
        bulkWorkers.stop()
        deadlines.stop()
        lingering.stop()
    }

    var isStopping: Bool { suspended.withLock { $0.stopping } }

    /// Requests handed on whose answer has not yet gone out (a stop waits for them).
    var answersNotYetSent: Int { suspended.withLock { $0.unsent } }

    private func finishedOne() {
        suspended.withLock { suspended in
            suspended.count -= 1
            if suspended.count == 0 { suspended.allAnswered?.signal() }
        }
    }

    /// A suspended request's answer has gone out (or its client went away): called as it completes.
    func sentOne() {
        suspended.withLock { suspended in
            suspended.unsent -= 1
            if suspended.unsent == 0 { suspended.allSent?.signal() }
        }
    }

    /// How long a stop waits for answers already given to finish going out.
    static let sendingGrace = DispatchTimeInterval.seconds(10)

    /// The answer when every worker is busy and the queue is full, or the server is stopping.
    static let busy = HTTPResponse.json(
        503,
        Array(
            #"{"error":"server_busy","message":"the server is too busy to take this request now; retry shortly"}"#.utf8),
        headers: [("Retry-After", "1")])
}

/// A connection handed to a worker: suspended on the polling thread, resumed from the worker once its
/// answer is ready (libmicrohttpd allows resuming from any thread), hence `@unchecked Sendable`.
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    func suspend() { MHD_suspend_connection(pointer) }
    func resume() { MHD_resume_connection(pointer) }
}
