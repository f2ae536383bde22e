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
    private let workers: WorkerPool
    private let suspended = Mutex(SuspendedRequests())

    private struct SuspendedRequests {
        var count = 0
        var stopping = false
        var allAnswered: DispatchSemaphore?
    }

    init(limits: HTTPServerLimits, router: @escaping HTTPServer.Router, log: @escaping HTTPServer.MessageLog) {
        self.limits = limits
        self.router = router
        self.log = log
        deadlines = ConnectionDeadlines(limits: limits)
        workers = WorkerPool(threads: limits.workerThreads, maxQueued: limits.maxQueuedRequests, name: "http-worker")
    }

    /// Suspends `connection` until `answer` (work on a worker, or a responder called later) has
    /// produced its response; false when the server is stopping (the connection stays as it was).
    func dispatch(_ answer: HTTPAnswer, state: RequestState, connection: SuspendedConnection) -> Bool {
        let admitted = suspended.withLock { suspended in
            guard !suspended.stopping else { return false }
            suspended.count += 1
            return true
        }
        guard admitted else { return false }
        connection.suspend()
        let responder = HTTPResponder(core: self, state: state, connection: connection)
        switch answer {
        case .now(let response):
            responder.respond(response)
        case .onWorker(let work):
            if !workers.submit({ responder.respond(work()) }) { responder.respond(Self.busy) }
        case .later(let start):
            start(responder)
        }
        return true
    }

    /// Hands a suspended request its response (the first time only) and resumes its connection.
    func respond(_ response: HTTPResponse, state: RequestState, connection: SuspendedConnection) {
        guard state.answer(response) else { return }
        connection.resume()
        finishedOne()
    }

    /// Refuses new work, waits until every suspended request has been answered, and ends the workers
    /// and the deadline sweep.
    func stop() {
        let waitFor: DispatchSemaphore? = suspended.withLock { suspended in
            suspended.stopping = true
            guard suspended.count > 0 else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            suspended.allAnswered = semaphore
            return semaphore
        }
        waitFor?.wait()
        workers.stop()
        deadlines.stop()
    }

    var isStopping: Bool { suspended.withLock { $0.stopping } }

    private func finishedOne() {
        suspended.withLock { suspended in
            suspended.count -= 1
            if suspended.count == 0 { suspended.allAnswered?.signal() }
        }
    }

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

/// One request as it arrives: its body is gathered on the polling thread; its answer is written by a
/// worker and read back on the polling thread after the connection resumes.
final class RequestState: Sendable {
    private struct Upload {
        var body: [UInt8] = []
        var tooLarge = false
        var dispatched = false
    }
    private let upload = Mutex(Upload())
    /// The answer from the worker or responder, until the polling thread takes it to send.
    private let response = Mutex<(value: HTTPResponse?, given: Bool)>((nil, false))
    /// The connection's deadlines entry (nil if libmicrohttpd gave none).
    let connection: ConnectionDeadlines.Entry?

    init(connection: ConnectionDeadlines.Entry?, tooLarge: Bool) {
        self.connection = connection
        upload.withLock { $0.tooLarge = tooLarge }
    }

    /// Adds a chunk of the body, dropping everything once it is over `limit` bytes.
    func append(_ chunk: UnsafeBufferPointer<UInt8>, limit: Int) {
        upload.withLock { upload in
            guard !upload.tooLarge else { return }
            if upload.body.count + chunk.count > limit {
                upload.tooLarge = true
                upload.body = []
            } else {
                upload.body.append(contentsOf: chunk)
            }
        }
    }

    /// The body gathered, or nil if it was over the limit; marks the request as handed on.
    func takeBody() -> [UInt8]? {
        upload.withLock { upload in
            upload.dispatched = true
            return upload.tooLarge ? nil : upload.body
        }
    }

    var isDispatched: Bool { upload.withLock { $0.dispatched } }

    /// Records the response; false if one was recorded before.
    func answer(_ value: HTTPResponse) -> Bool {
        response.withLock { response in
            guard !response.given else { return false }
            response = (value, true)
            return true
        }
    }

    func takeAnswer() -> HTTPResponse? { response.withLock { $0.value.take() } }
}
