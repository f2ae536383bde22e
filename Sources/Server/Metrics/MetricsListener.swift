import HTTPServing

extension ScanPickAPI {
    /// Starts `/metrics` on a listener of its own (the config's `metrics.listen`), with the API's
    /// TLS identity; it answers nothing else. Stop it with ``HTTPServer/stop()``.
    ///
    ///     let scrapes = try api.startMetricsListener(listen, tls: tls, log: log)
    public func startMetricsListener(
        _ listen: ListenAddress, tls: TLSIdentity?, log: @escaping @Sendable (String) -> Void
    ) throws(HTTPServerError) -> HTTPServer {
        try HTTPServer(
            listen: listen, limits: Self.metricsListenerLimits, tls: tls, log: log,
            router: { self.routeMetricsListener($0) })
    }

    /// The metrics listener serves a few scrapers: few connections, no bodies.
    static let metricsListenerLimits = {
        var limits = HTTPServerLimits()
        limits.connectionLimit = 64
        limits.perAddressConnectionLimit = 16
        limits.maxBodyBytes = 1024
        limits.workerThreads = 2
        limits.bulkWorkerThreads = 1
        limits.pollingThreads = 1
        return limits
    }()

    /// The hourly housekeeping: stored idempotency answers past their retention, stations not
    /// heard from for ``StationRegistry/forgetAfter`` and the fleet page's ended sessions are deleted.
    public func prune() throws {
        try pruneIdempotencyKeys()
        try forgetSilentStations()
        try forgetEndedFleetSessions()
    }
}
