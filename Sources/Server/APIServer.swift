import HTTPServing
import Lifecycle
import Logging
import ServiceManager

/// `scanpick serve` as a list of services, built before anything runs and started in this order:
/// housekeeping (pruning at start and hourly, complete batches closed), the API's listener,
/// `/metrics`'s own listener when the config gives one, and the ``ReadinessDrain``, which stops first. The database is opened (and migrated) as
/// it is built. A ``ServiceGroup`` runs them: ready once the listeners listen, the watchdog pinged
/// while no request handler and no commit is stuck, stopped in reverse on SIGINT or SIGTERM (the
/// listeners finish the requests in flight).
///
///     let server = try APIServer(configuration: configuration, tls: tls, logger: logger)
///     try await server.run(stopSignals: UnixSignals.takeOver().stops)
public struct APIServer: Sendable {
    public let api: ScanPickAPI
    /// The services, in the order they start.
    public let services: [any Service]
    private let listener: HTTPService
    private let watchdog: ServiceManager.Watchdog
    private let logger: Logger

    /// Opens the database `configuration` names and applies its pending migrations; nothing listens
    /// before ``run(stopSignals:)``.
    public init(
        configuration: ServerConfiguration, tls: TLSIdentity?, logger: Logger,
        watchdogInterval: Duration? = ServiceManager.watchdogInterval
    ) throws {
        let api = try ScanPickAPI(configuration: configuration, logger: logger)
        let database = configuration.database.description
        listener = HTTPService(
            "api-listener", listen: configuration.listen, limits: configuration.http, tls: tls, logger: logger,
            checkHead: { api.checkHead(&$0) },
            explain: { APIServerError.cannotListen("\($0) (the address is the config's \"listen\" or --listen)") },
            onListening: { server in
                logger.notice(
                    "listening",
                    [
                        "address": "\(server.address)", "database": .string(database),
                        "scheme": server.servesTLS ? "https" : "http",
                    ])
            },
            router: { api.route($0) })
        let metrics = configuration.metrics.listen.map { api.metricsListener($0, tls: tls) }
        // Last, so the first to stop: /health/ready says 503 for drainSeconds before the listeners close.
        let drain = ReadinessDrain(api: api, seconds: configuration.drainSeconds, logger: logger)
        services = [Housekeeping(api: api, logger: logger), listener] + (metrics.map { [$0] } ?? []) + [drain]
        // systemd's watchdog (WatchdogSec=): pinged while no request handler and no commit has been
        // stuck for two minutes (an order feed takes seconds; a commit, milliseconds).
        watchdog = ServiceManager.Watchdog(logger: logger, interval: watchdogInterval)
        watchdog.watch("http-handlers", allowance: Self.stuckAfter) { [listener] in
            Int64(clamping: listener.longestRunningHandler)
        }
        watchdog.watch("database-commit", allowance: Self.stuckAfter) { Int64(clamping: api.commitRunningFor) }
        self.api = api
        self.logger = logger
    }

    /// How long a request handler or a commit may run before the server counts as wedged.
    public static let stuckAfter = Duration.seconds(120)

    /// Runs the services until a stop signal (or a failure, which it throws once all have stopped).
    public func run(stopSignals: AsyncStream<Int32>?) async throws {
        let listener = listener
        let group = ServiceGroup(
            services, stopSignals: stopSignals, watchdog: watchdog,
            readyStatus: { "serving on \(listener.running.map { "\($0.address)" } ?? "?")" }, logger: logger)
        try await group.run()
    }
}

/// Why the server could not start, in the operator's words.
public enum APIServerError: Error, CustomStringConvertible {
    /// An address in the config cannot be listened on (in use, not an address here).
    case cannotListen(String)

    public var description: String {
        switch self {
        case .cannotListen(let reason): reason
        }
    }
}
