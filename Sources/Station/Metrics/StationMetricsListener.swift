import HTTPServing
import Lifecycle
import Synchronization

/// `GET /metrics` on a listener of its own (the station config's `metrics.listen`), so a central
/// Prometheus scrapes the station without reaching the picker's page; it answers nothing else.
/// Who may scrape is the config's `metrics` rule (``MetricsAccess``): a loopback listener or
/// `allowUnauthenticated`, else a bearer token whose SHA-256 is in `metrics.tokenSha256`. A service
/// of the station's group: it listens when started (an address in use fails the start) and closes
/// when stopped.
///
///     let scrapes = StationMetricsListener(listen: listen, access: access) { metrics.text(…).bytes }
public final class StationMetricsListener: Service {
    public let name = "metrics-listener"
    private let listen: ListenAddress
    private let access: MetricsAccess
    private let text: @Sendable () -> [UInt8]
    private let onListening: @Sendable (ListenAddress) -> Void
    private let server = Mutex<HTTPServer?>(nil)

    /// The address it listens on (port 0 resolved), once started.
    public var address: ListenAddress? { server.withLock { $0?.address } }

    /// Nothing listens before ``start()``; `onListening` hears the address then.
    public init(
        listen: ListenAddress, access: MetricsAccess, text: @escaping @Sendable () -> [UInt8],
        onListening: @escaping @Sendable (ListenAddress) -> Void = { _ in }
    ) {
        self.listen = listen
        self.access = access
        self.text = text
        self.onListening = onListening
    }

    /// Listens on the config's `metrics.listen`; throws ``StationStartError/metricsCannotListen(_:)``.
    public func start() async throws {
        let (listen, access, text) = (listen, access, text)
        let started: HTTPServer
        do {
            started = try await BlockingExecutor.shared.run {
                try HTTPServer(listen: listen, limits: Self.limits) { request in
                    Self.answer(request, access: access, text: text)
                }
            }
        } catch {
            throw StationStartError.metricsCannotListen("\(error)")
        }
        server.withLock { $0 = started }
        onListening(started.address)
    }

    /// Serves until cancelled, then closes (finishing a scrape in flight).
    public func run() async {
        await waitUntilCancelled()
        guard let stopping = server.withLock({ $0.take() }) else { return }
        // On a thread of its own: it waits for the requests in flight, which may need the pool.
        await BlockingExecutor.runOnOwnThread(named: "metrics-stop") { stopping.stop() }
    }

    private static func answer(
        _ request: HTTPRequest, access: MetricsAccess, text: @escaping @Sendable () -> [UInt8]
    ) -> HTTPAnswer {
        do throws(HTTPError) {
            guard request.path == "/metrics" else { throw HTTPError.noSuchRoute(request.path) }
            guard request.method == "GET" || request.method == "HEAD" else {
                throw HTTPError.methodNotAllowed(["GET", "HEAD"])
            }
            try access.check(request)
        } catch {
            return .now(error.response)
        }
        return .onWorker {
            HTTPResponse(
                status: 200,
                headers: [("Content-Type", StationMetrics.contentType), ("Cache-Control", "no-store")],
                body: text())
        }
    }

    /// A few scrapers: few connections, no bodies, one worker.
    static let limits = {
        var limits = HTTPServerLimits()
        limits.connectionLimit = 64
        limits.perAddressConnectionLimit = 16
        limits.maxBodyBytes = 1024
        limits.workerThreads = 1
        limits.bulkWorkerThreads = 1
        limits.pollingThreads = 1
        return limits
    }()
}
