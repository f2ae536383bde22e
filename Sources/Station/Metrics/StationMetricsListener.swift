import HTTPServing

/// `GET /metrics` on a listener of its own (the station config's `metrics.listen`), so a central
/// Prometheus scrapes the station without reaching the picker's page; it answers nothing else.
/// Who may scrape is the config's `metrics` rule (``MetricsAccess``): a loopback listener or
/// `allowUnauthenticated`, else a bearer token whose SHA-256 is in `metrics.tokenSha256`.
///
///     let scrapes = try StationMetricsListener(listen: listen, access: access) { metrics.text(…).bytes }
///     scrapes.stop()
public final class StationMetricsListener: Sendable {
    private let server: HTTPServer

    /// The address it listens on (port 0 resolved).
    public var address: ListenAddress { server.address }

    public init(listen: ListenAddress, access: MetricsAccess, text: @escaping @Sendable () -> [UInt8])
        throws(HTTPServerError)
    {
        server = try HTTPServer(listen: listen, limits: Self.limits) { request in
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
    }

    public func stop() { server.stop() }

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
