internal import CMicroHTTPD
import Foundation
import Logging
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd in epoll mode: a few polling threads serve every connection,
/// so an idle or slow client costs memory, not a thread. A request is given to the application on
/// a polling thread, which says how it will be answered (``HTTPAnswer``): at once, by blocking work
/// on a pool of worker threads, or later from elsewhere; meanwhile the connection is suspended.
/// ``HTTPServerLimits`` bounds what any client can hold.
///
///     let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
///         HTTPResponse(status: 200, body: Array("ok".utf8))  // on a worker thread
///     }
///     print(server.address)  // the bound port, when 0 was asked for
///     server.stop()
public final class HTTPServer: Sendable {
    /// Turns a request into a response; called on a worker thread, possibly concurrently.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Says how a request will be answered; called on a polling thread, so it must not block.
    public typealias Router = @Sendable (HTTPRequest) -> HTTPAnswer
    /// Looks at a request's head (method, path, headers; no body yet) on a polling thread, and
    /// returns a refusal to send at once — before any of the body is read or kept — or nil. What it
    /// learned of a head it lets through may go into ``HTTPRequest/admission`` for the router.
    public typealias HeadCheck = @Sendable (inout HTTPRequest) -> HTTPResponse?
    /// The address actually bound (port 0 resolved).
    public let address: ListenAddress
    /// The limits in force.
    public let limits: HTTPServerLimits
    private let core: ServerCore
    private let daemon: Daemon

    /// A server whose every request is answered by `handler` on a worker thread.
    public convenience init(
        listen: ListenAddress, limits: HTTPServerLimits = HTTPServerLimits(), tls: TLSIdentity? = nil,
        logger: Logger = .discarding, handler: @escaping Handler
    ) throws(HTTPServerError) {
        try self.init(
            listen: listen, limits: limits, tls: tls, logger: logger,
            router: { request in .onWorker { handler(request) } })
    }

    /// A server that asks `router`, on a polling thread, how each request will be answered, after
    /// `checkHead` has let its head through. With `tls` it serves HTTPS only. libmicrohttpd's own
    /// sentences go to `logger` as `http` warnings.
    public init(
        listen: ListenAddress, limits: HTTPServerLimits = HTTPServerLimits(), tls: TLSIdentity? = nil,
        logger: Logger = .discarding, checkHead: HeadCheck? = nil, router: @escaping Router
    ) throws(HTTPServerError) {
        guard let socketAddress = listen.socketAddress() else {
            throw .cannotListen(listen, reason: "not an IP address")
        }
        // Each connection is an open file: raise the process's limit to fit, or fit the connection
        // limit to what the process may open (a service manager's LimitNOFILE=, a container's).
        var limits = limits
        let files = FileDescriptorLimit.raise(toAtLeast: limits.connectionLimit + Self.filesKeptBack)
        if files - Self.filesKeptBack < limits.connectionLimit {
            guard files - Self.filesKeptBack >= 16 else {
                throw .tooFewFileDescriptors(needed: 16 + Self.filesKeptBack, allowed: files)
            }
            ServerCore.say(
                logger,
                "this process may open only \(files) files: serving at most \(files - Self.filesKeptBack) connections, not \(limits.connectionLimit) (raise LimitNOFILE= or ulimit -Hn)"
            )
            limits.connectionLimit = files - Self.filesKeptBack
        }
        let core = ServerCore(limits: limits, checkHead: checkHead, router: router, logger: logger)
        let context = Unmanaged.passRetained(core).toOpaque()
        let messages = UnsafeMutablePointer<scanpick_mhd_logger>.allocate(capacity: 1)
        messages.initialize(to: scanpick_mhd_logger(function: forwardMessage, context: context))
        let key = tls.map { strdup($0.privateKeyPEM) }
        let certificate = tls.map { strdup($0.certificateChainPEM) }
        defer {  // GnuTLS has copied them by the time the daemon has started
            free(key ?? nil)
            free(certificate ?? nil)
        }
        core.holdMessages()
        let started = socketAddress.withUnsafeBytes { raw in
            var settings = scanpick_mhd_settings(
                address: raw.baseAddress!.assumingMemoryBound(to: sockaddr.self),
                // The limits are kept by making room (``ConnectionDeadlines``): libmicrohttpd, which
                // could only refuse the newest, gets room for those closed and not yet freed.
                polling_threads: UInt32(limits.pollingThreads),
                connection_limit: UInt32(limits.connectionLimit + Self.connectionsClosing),
                per_address_connection_limit: 0,
                idle_timeout_seconds: UInt32(limits.idleTimeoutSeconds),
                connection_memory_limit: limits.maxHeadBytes, tls_key: key ?? nil, tls_certificate: certificate ?? nil)
            return scanpick_mhd_start(
                &settings, admitConnection, accessHandler, context, requestCompleted, connectionNotified, context,
                messages)
        }
        let failure = errno
        // libmicrohttpd's own words while starting: passed on once it runs; when it did not start they
        // join the error, except its "Failed to bind to port 0", which names no port we asked for.
        let startMessages = core.releaseMessages(log: started != nil)
        guard let started else {
            var reason = failure == EADDRINUSE ? "the address is already in use" : String(cString: strerror(failure))
            let said = startMessages.filter { !$0.hasPrefix("Failed to bind") }
            if !said.isEmpty { reason += " (" + said.joined(separator: "; ") + ")" }
            core.stop()
            Unmanaged<ServerCore>.fromOpaque(context).release()
            messages.deallocate()
            throw .cannotListen(listen, reason: reason)
        }
        self.core = core
        self.limits = limits
        self.daemon = Daemon(pointer: started, context: context, logger: messages)
        self.address = ListenAddress(host: listen.host, port: scanpick_mhd_bound_port(started))
        self.servesTLS = tls != nil
    }

    /// Whether the server speaks HTTPS.
    public let servesTLS: Bool

    /// Open files kept for everything but connections (databases, logs, the listening socket).
    static let filesKeptBack = 256

    /// Connections libmicrohttpd may hold beyond ``HTTPServerLimits/connectionLimit``: those
    /// closed to make room and not yet freed (within ``filesKeptBack``).
    static let connectionsClosing = 64

    /// How many answers from elsewhere (``HTTPAnswer/later(_:)``) came while their polling thread
    /// waited for them, so that their connection was never suspended.
    var answersWaitedFor: Int { core.loneAnswers.waitedFor.load(ordering: .relaxed) }

    /// How many streamed responses (``HTTPStream``) are being sent now.
    public var openStreams: Int { core.streams.count }

    /// How many closed connections linger now, reading what their client still sends
    /// (``LingeringCloses``).
    var lingeringConnections: Int { core.lingering.count }

    /// How many connections were closed because they sent a request too slowly.
    public var slowConnectionsClosed: Int { core.deadlines.closedCount }

    /// How long the longest request handler now running has run, in nanoseconds (0 when none runs):
    /// for a watchdog, a handler that never returns is a wedged server.
    public var longestRunningHandler: UInt64 { core.longestRunningHandler }

    /// Stops accepting, lets the requests being answered finish, and frees the server. Safe to call twice.
    public func stop() {
        daemon.stop(core)
    }

    deinit { stop() }
}

/// How a request will be answered, as the application's router decides on a polling thread.
public enum HTTPAnswer: Sendable {
    /// This response, sent at once: the router did no blocking work (a health check, a refusal).
    case now(HTTPResponse)
    /// Work that may block (a database query): it runs on a worker thread and its response is sent.
    case onWorker(@Sendable () -> HTTPResponse)
    /// Large work (an upload of many records): like ``onWorker(_:)`` but on the few bulk workers, so
    /// such requests can never take every worker from the quick ones.
    case onBulkWorker(@Sendable () -> HTTPResponse)
    /// The response comes later from elsewhere (a thread committing to a database): `start` is
    /// called on the polling thread with the responder that must be called once, from any thread.
    /// Meanwhile the connection is suspended, except that the polling thread first waits a moment
    /// for the answer of a request that came alone (a client that sends one write after another;
    /// see ``HTTPServerLimits/loneAnswerWaitMicroseconds``): that answer goes out at once, with no
    /// polling thread to wake.
    case later(@Sendable (HTTPResponder) -> Void)
}

/// Sends the answer to a request whose connection waits suspended (``HTTPAnswer/later(_:)``). Only
/// its first call counts.
public struct HTTPResponder: Sendable {
    let core: ServerCore
    let state: RequestState
    let connection: SuspendedConnection
    /// The polling thread waiting for this answer, if one is (see ``LoneAnswerWait``).
    let waiter: AnswerWaiter?

    /// Sends `response` (from any thread) and lets the connection go on. `whenSent` runs on a polling
    /// thread once the response has gone out or its client has gone: bookkeeping such as a log
    /// line belongs there, off the thread that answered and off the answer's way to the client.
    public func respond(_ response: HTTPResponse, whenSent: (@Sendable () -> Void)? = nil) {
        core.respond(response, state: state, connection: connection, waiter: waiter, whenSent: whenSent)
    }
}

/// Why the server could not start.
public enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotListen(ListenAddress, reason: String)
    case tooFewFileDescriptors(needed: Int, allowed: Int)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .tooFewFileDescriptors(let needed, let allowed):
            "serving needs at least \(needed) open files but this process may open only \(allowed): raise the limit (ulimit -n, LimitNOFILE= in a systemd unit)"
        }
    }
}

/// The libmicrohttpd daemon and the retained context its callbacks use. Its state is guarded by
/// `lock`, and `MHD_stop_daemon` is safe from any thread, hence `@unchecked Sendable`.
private final class Daemon: @unchecked Sendable {
    private let lock = NSLock()
    private var pointer: OpaquePointer?
    private let context: UnsafeMutableRawPointer
    private let logger: UnsafeMutablePointer<scanpick_mhd_logger>

    init(pointer: OpaquePointer, context: UnsafeMutableRawPointer, logger: UnsafeMutablePointer<scanpick_mhd_logger>) {
        self.pointer = pointer
        self.context = context
        self.logger = logger
    }

    /// Stops taking connections (``admitConnection`` closes each new one once the core stops), waits
    /// for the suspended requests to be answered (libmicrohttpd must not stop with a connection
    /// suspended), stops the daemon and frees the context, once.
    ///
    /// Not `MHD_quiesce_daemon`: in epoll mode with a pool of polling threads, libmicrohttpd 0.9.75
    /// removes the listening socket from each thread's epoll set both there and in the threads' own
    /// loops, unlocked, and aborts the process when it loses that race (`Failed to remove listen FD
    /// from epoll set`: seen in the suite on a loaded machine).
    func stop(_ core: ServerCore) {
        lock.lock()
        defer { lock.unlock() }
        guard let running = pointer else { return }
        core.stop()
        MHD_stop_daemon(running)
        pointer = nil
        Unmanaged<ServerCore>.fromOpaque(context).release()
        logger.deallocate()
    }
}

/// The process's limit on open files, raised (within its hard limit) to what the server needs.
enum FileDescriptorLimit {
    /// Raises the soft limit to `needed` if the hard limit allows, else to the hard limit; returns
    /// the limit now in force.
    static func raise(toAtLeast needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return needed }
        guard limit.rlim_cur < rlim_t(needed) else { return Int(clamping: limit.rlim_cur) }
        limit.rlim_cur = min(rlim_t(needed), limit.rlim_max)
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            return Int(clamping: limit.rlim_cur)
        }
        return Int(clamping: limit.rlim_cur)
    }
}

/// libmicrohttpd's messages, passed to the server's log.
private let forwardMessage: scanpick_mhd_message_function = { context, message in
    guard let context, let message else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
    core.say(String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines))
}
