internal import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// What libmicrohttpd's callbacks reach through their context pointer: the router, the limits, the
/// worker pool, the connection deadlines, and the count of suspended requests still owed an answer
/// (the server may only stop once it is zero).
final class ServerCore: Sendable {
    let limits: HTTPServerLimits
    let router: HTTPServer.Router
    let log: HTTPServer.MessageLog
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
        log: @escaping HTTPServer.MessageLog
    ) {
        self.limits = limits
        self.checkHead = checkHead
        self.router = router
        self.log = log
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
        if shouldLog { held.forEach(log) }
        return held
    }

    /// One of libmicrohttpd's messages: logged, or held while the daemon starts.
    func say(_ message: String) {
        let held = heldMessages.withLock { held -> Bool in
            guard held != nil else { return false }
            held?.append(message)
            return true
        }
        if !held { log(message) }
    }

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

/// The streamed responses being sent. Once the server stops, each is ended and none is admitted.
final class OpenStreams: Sendable {
    private let state = Mutex<(stopping: Bool, open: [ObjectIdentifier: HTTPStream])>((false, [:]))

    /// Counts `stream` in; false once the server is stopping.
    func admit(_ stream: HTTPStream) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.open[ObjectIdentifier(stream)] = stream
            return true
        }
    }

    func remove(_ stream: HTTPStream) {
        _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// How many streams are being sent.
    var count: Int { state.withLock { $0.open.count } }

    /// Ends every stream and admits no more.
    func endAll() {
        let open = state.withLock { state in
            state.stopping = true
            return Array(state.open.values)
        }
        for stream in open { stream.end() }
    }
}

/// Which connection sent the last request head, and when: a request whose head follows one of the
/// same connection, or none for ``quietGap``, came alone (no other client is sending now). Only
/// such a request's answer is waited for on its polling thread (``LoneAnswerWait``): other
/// clients' requests that wait unread in their sockets are not yet open requests, and a polling
/// thread waiting for one answer would leave them unread, so that under load every commit would
/// hold one write instead of all that had arrived (measured: 5,400 scans/s at 8 connections
/// instead of 10,000).
final class HeadArrivals: Sendable {
    private let last = Mutex<(connection: UInt, at: UInt64)>((0, 0))

    /// How long no other client's request head must have arrived for one to come alone (ns).
    static let quietGap: UInt64 = 2_000_000

    /// Notes a head arriving on `connection` at `now` (uptime, ns); true if it came alone.
    func arrived(on connection: UInt, at now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Bool {
        let previous = last.withLock { last in
            defer { last = (connection, now) }
            return last
        }
        return previous.connection == connection || now &- previous.at > Self.quietGap
    }
}

/// How long a polling thread waits for the answer of a lone ``HTTPAnswer/later(_:)`` request (a
/// client sending one write after another) before it suspends the connection: up to `longest`
/// (``HTTPServerLimits/loneAnswerWaitMicroseconds``), spinning and yielding its core, so that the
/// answer goes out the moment it comes. The thread's other connections wait that long at most, and
/// only while no other request is open. While answers have lately taken longer than `longest` (a
/// slow or stalled disk) it does not wait at all, rather than spin for nothing: each lone answer's
/// delay, waited for or not, goes into a moving average (an eighth for each).
final class LoneAnswerWait: Sendable {
    /// The longest wait.
    let longest: Duration
    private let longestNanoseconds: Int
    /// The moving average of lone answers' delays, in nanoseconds.
    private let averageDelay = Atomic(0)
    /// Answers that came while their polling thread waited, so that their connection was never suspended.
    let waitedFor = Atomic(0)

    init(longest: Duration) {
        self.longest = longest
        longestNanoseconds = Self.nanoseconds(longest)
    }

    /// How long the next lone answer is waited for: `longest`, or zero while answers come later.
    var limit: Duration { averageDelay.load(ordering: .relaxed) <= longestNanoseconds ? longest : .zero }

    /// Notes a lone answer's delay.
    func came(after delay: Duration) {
        let sample = Self.nanoseconds(delay)
        var current = averageDelay.load(ordering: .relaxed)
        while true {
            let next = current - current / 8 + sample / 8
            let (exchanged, original) = averageDelay.compareExchange(
                expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
    }
}

/// Where a polling thread waits, for a moment, for the answer a responder gives from another
/// thread (``ServerCore/dispatch(_:state:connection:)``). Exactly one of ``handOver()`` (by the
/// responder) and ``giveUp()`` (by the polling thread) succeeds.
final class AnswerWaiter: Sendable {
    private static let waiting = 0
    private static let answered = 1
    private static let gaveUp = 2
    private let stage = Atomic(AnswerWaiter.waiting)
    private let made = ContinuousClock.now

    /// How long ago the waiter was made (when the request was handed on).
    var age: Duration { ContinuousClock.now - made }

    /// Looks for the answer until it comes or `limit` has passed, yielding the core between looks
    /// (a limit of zero looks once: an answer given while the request was handed on is taken).
    func waitForAnswer(upTo limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while stage.load(ordering: .acquiring) != Self.answered {
            guard ContinuousClock.now < deadline else { return false }
            sched_yield()
        }
        return true
    }

    /// The responder's side: true if the polling thread is still waiting and now has the answer.
    func handOver() -> Bool {
        stage.compareExchange(expected: Self.waiting, desired: Self.answered, ordering: .acquiringAndReleasing)
            .exchanged
    }

    /// The polling thread's side, once the connection is suspended: true if no answer was handed
    /// over (the responder will resume the connection); false if one was (the caller resumes it).
    func giveUp() -> Bool {
        stage.compareExchange(expected: Self.waiting, desired: Self.gaveUp, ordering: .acquiringAndReleasing)
            .exchanged
    }
}

/// A connection handed to a worker: suspended on the polling thread, resumed from the worker once its
/// answer is ready (libmicrohttpd allows resuming from any thread), hence `@unchecked Sendable`.
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    func suspend() { MHD_suspend_connection(pointer) }
    func resume() { MHD_resume_connection(pointer) }
}

/// One request as it arrives: its head, read when the headers are in; its body, gathered on the
/// polling thread; and its answer, written by a worker or responder and read back on the polling
/// thread after the connection resumes.
final class RequestState: Sendable {
    /// Why a request's body was not kept.
    enum Refusal: Sendable {
        /// Over the request's own limit (413).
        case tooLarge
        /// Over what the server buffers for all requests together (503).
        case overBudget
    }

    private struct Upload {
        var body: [UInt8] = []
        var refusal: Refusal?
        var dispatched = false
        /// Counted among the answers a stop waits to see sent (``ServerCore/sentOne()``).
        var countedUntilSent = false
        /// Bytes counted against the server's body budget (given back when the request ends).
        var counted = 0
    }
    private let upload = Mutex(Upload())
    /// The answer from the worker or responder, until the polling thread takes it to send, and
    /// what runs once it has been sent.
    private let response = Mutex<(value: HTTPResponse?, given: Bool, whenSent: (@Sendable () -> Void)?)>(
        (nil, false, nil))
    /// Method, path, query and headers, without the body.
    let head: HTTPRequest
    /// The connection's deadlines entry (nil if libmicrohttpd gave none).
    let connection: ConnectionDeadlines.Entry?

    /// Whether no other client was sending when its head arrived (``HeadArrivals``).
    let arrivedAlone: Bool

    init(head: HTTPRequest, connection: ConnectionDeadlines.Entry?, expectedBodyBytes: Int, arrivedAlone: Bool) {
        self.head = head
        self.connection = connection
        self.arrivedAlone = arrivedAlone
        upload.withLock { $0.body.reserveCapacity(expectedBodyBytes) }
    }

    /// Adds a chunk of the body, dropping everything once it is over `limit` bytes or `budget`
    /// refuses more.
    func append(_ chunk: UnsafeBufferPointer<UInt8>, limit: Int, budget: BodyBudget) {
        upload.withLock { upload in
            guard upload.refusal == nil else { return }
            if upload.body.count + chunk.count > limit {
                upload.refusal = .tooLarge
            } else if !budget.take(chunk.count) {
                upload.refusal = .overBudget
            } else {
                upload.counted += chunk.count
                upload.body.append(contentsOf: chunk)
                return
            }
            upload.body = []
        }
    }

    /// The body gathered, or why it was not kept; marks the request as handed on.
    func takeBody() -> Result<[UInt8], RefusedBody> {
        upload.withLock { upload in
            upload.dispatched = true
            if let refusal = upload.refusal { return .failure(RefusedBody(refusal: refusal)) }
            return .success(upload.body)
        }
    }

    /// The request ended: give its bytes back to the budget.
    func finish(budget: BodyBudget) {
        let counted = upload.withLock { upload in
            defer { upload.counted = 0 }
            return upload.counted
        }
        budget.give(counted)
    }

    var isDispatched: Bool { upload.withLock { $0.dispatched } }

    /// The request was handed on for its answer: a stop waits until it has completed.
    func markCountedUntilSent() { upload.withLock { $0.countedUntilSent = true } }

    var isCountedUntilSent: Bool { upload.withLock { $0.countedUntilSent } }

    /// Records the response and what runs once it is sent; false if one was recorded before.
    func answer(_ value: HTTPResponse, whenSent: (@Sendable () -> Void)? = nil) -> Bool {
        response.withLock { response in
            guard !response.given else { return false }
            response = (value, true, whenSent)
            return true
        }
    }

    /// What runs now that the request has completed (its answer sent, or its client gone), once.
    func takeWhenSent() -> (@Sendable () -> Void)? { response.withLock { $0.whenSent.take() } }

    func takeAnswer() -> HTTPResponse? { response.withLock { $0.value.take() } }
}

/// A body that was not kept, and why.
struct RefusedBody: Error {
    var refusal: RequestState.Refusal
}

/// Request-body bytes the server holds for all requests together: a client that opens many
/// connections and sends big bodies slowly meets this before the machine runs out of memory.
final class BodyBudget: Sendable {
    private let left: Atomic<Int>
    init(bytes: Int) { left = Atomic(bytes) }

    /// Takes `count` bytes if there are that many left.
    func take(_ count: Int) -> Bool {
        var current = left.load(ordering: .relaxed)
        while current >= count {
            let (exchanged, original) = left.compareExchange(
                expected: current, desired: current - count, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func give(_ count: Int) { left.add(count, ordering: .relaxed) }
}
