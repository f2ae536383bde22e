import HTTPServing
import Logging

extension ScanPickAPI {
    /// `/metrics` on a listener of its own (the config's `metrics.listen`), with the API's TLS
    /// identity, as a service; it answers nothing else.
    ///
    ///     let scrapes = api.metricsListener(listen, tls: tls)
    func metricsListener(_ listen: ListenAddress, tls: TLSIdentity?) -> HTTPService {
        HTTPService(
            "metrics-listener", listen: listen, limits: Self.metricsListenerLimits, tls: tls, logger: logger,
            explain: { APIServerError.cannotListen("\($0) (the address is the config's \"metrics.listen\")") },
            onListening: { [logger] in logger.notice("metrics_listening", ["address": "\($0.address)"]) },
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
