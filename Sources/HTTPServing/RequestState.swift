import Synchronization

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
