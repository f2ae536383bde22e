/// What one client may hold of an ``HTTPServer``: connections, time and memory. Every default is a
/// limit a slow or hostile client meets before it can slow anyone else down.
///
///     var limits = HTTPServerLimits()
///     limits.perAddressConnectionLimit = 16
public struct HTTPServerLimits: Sendable, Equatable {
    /// Open connections at most, over all clients (past it, new ones are closed at once).
    public var connectionLimit = 4096
    /// Open connections at most from one IP address.
    public var perAddressConnectionLimit = 64
    /// A connection must have sent a whole request head (request line and headers) within this many
    /// seconds of opening or of its previous answer, however steadily it trickles bytes; otherwise
    /// it is closed. This is also how long an idle kept-alive connection stays open.
    public var headerTimeoutSeconds = 10
    /// After its head, a request's whole body must arrive within this many seconds.
    public var bodyTimeoutSeconds = 30
    /// A connection that neither sends nor reads anything for this long is closed (e.g. a client
    /// that stops reading its answer).
    public var idleTimeoutSeconds = 30
    /// The largest request body accepted; a bigger one is answered 413 without being kept.
    public var maxBodyBytes = 1 << 20
    /// Bytes for one connection's request line and headers; a longer head is answered 414 or 431.
    public var maxHeadBytes = 32 * 1024
    /// Threads that poll the sockets (epoll) and answer requests that never block.
    public var pollingThreads = 2
    /// Threads that run handlers which may block (on a database).
    public var workerThreads = 16
    /// Threads that run large requests (order feeds, new batches), apart from the others.
    public var bulkWorkerThreads = 2
    /// Requests waiting for a worker at most (in each lane); past it a request is answered 503 at once.
    public var maxQueuedRequests = 1024
    /// Request-body bytes held at once over all requests; past it a body is refused with 503.
    public var maxBufferedBodyBytes = 256 << 20
    /// How long a polling thread waits, spinning, for the answer to a write that came alone
    /// before it suspends the connection and lets another thread wake it (0: never waits). The
    /// wait saves that wake-up (tens of microseconds on a virtual machine) but keeps the thread's
    /// core busy while one client writes back to back; it is skipped while answers take longer.
    public var loneAnswerWaitMicroseconds = 1000

    public init() {}

    /// One limit as a configuration file names it, with the values it may take.
    public struct Setting: Sendable {
        public let name: String
        public let keyPath: WritableKeyPath<HTTPServerLimits, Int> & Sendable
        public let range: ClosedRange<Int>
    }

    /// Every limit, by the name a configuration file gives it (e.g. `"perAddressConnectionLimit"`).
    public static let settings: [Setting] = [
        Setting(name: "connectionLimit", keyPath: \.connectionLimit, range: 1...65_536),
        Setting(name: "perAddressConnectionLimit", keyPath: \.perAddressConnectionLimit, range: 1...65_536),
        Setting(name: "headerTimeoutSeconds", keyPath: \.headerTimeoutSeconds, range: 1...3600),
        Setting(name: "bodyTimeoutSeconds", keyPath: \.bodyTimeoutSeconds, range: 1...3600),
        Setting(name: "idleTimeoutSeconds", keyPath: \.idleTimeoutSeconds, range: 1...3600),
        Setting(name: "maxBodyBytes", keyPath: \.maxBodyBytes, range: 1...(64 << 20)),
        Setting(name: "maxHeadBytes", keyPath: \.maxHeadBytes, range: 4096...(1 << 20)),
        Setting(name: "pollingThreads", keyPath: \.pollingThreads, range: 1...64),
        Setting(name: "workerThreads", keyPath: \.workerThreads, range: 1...1024),
        Setting(name: "bulkWorkerThreads", keyPath: \.bulkWorkerThreads, range: 1...64),
        Setting(name: "maxQueuedRequests", keyPath: \.maxQueuedRequests, range: 1...1_000_000),
        Setting(name: "maxBufferedBodyBytes", keyPath: \.maxBufferedBodyBytes, range: 1...(1 << 40)),
        Setting(name: "loneAnswerWaitMicroseconds", keyPath: \.loneAnswerWaitMicroseconds, range: 0...10_000),
    ]
}
