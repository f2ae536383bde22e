import ArgumentParsing
import Foundation
import HTTPServing
import LineLog
import Server
import ServiceManager
import Wire

/// `scanpick serve`: the reference ScanPick API over HTTP, until SIGINT or SIGTERM.
enum ServeCommand: Command {
    struct Arguments: CommandArguments {
        var server = ServerFile()
        var listen = Option<ListenAddress?>(
            "listen", valueName: "HOST:PORT",
            help: "Address to listen on, overriding the file (port 0: any free port).",
            parse: { text throws(UsageError) in
                do {
                    return try ListenAddress(parsing: text)
                } catch {
                    throw UsageError(": \(error)")
                }
            })
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "serve",
            abstract: "Run the ScanPick API server (HTTP/1.1; SQLite or PostgreSQL).",
            discussion: """
                Reads the server configuration (see config/server.json and the README), opens the database
                and applies its pending migrations (SQLite: WAL, synchronous=FULL; PostgreSQL: a pool of
                connections, several servers may share one database; either way a 2xx for a change means it
                is committed), and serves until SIGINT or
                SIGTERM, then finishes the requests in flight and exits 0. Logs one JSON line per request to
                standard error (method, path, status, ms, organisation; never a token); the first line says
                where it listens: {"event":"listening","address":"127.0.0.1:8080","scheme":"http",…}.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        // First: a stop asked for while the server starts (a service manager's) is kept for the
        // orderly shutdown below, not the default's sudden end.
        let stopSignals = SignalWaiter([SIGINT, SIGTERM])
        let configuration = try ServerFile.load(
            arguments[\.server.config], database: arguments[\.server.database], listen: arguments[\.listen])

        let tls = try ServerFile.startupCheck(configuration)
        // A log reader that went away (a closed pipe on standard error) costs lines, not the server.
        signal(SIGPIPE, SIG_IGN)
        let lines = LineLog()
        defer { lines.flush() }
        let log: @Sendable (String) -> Void = { lines.write(JournalPriority.tagged($0)) }
        for warning in ServerFile.warnings(configuration) { log(event("warning", ["message": warning])) }
        var lock: ServeLock?
        if case .sqlite(let path) = configuration.database { lock = try ServeLock(database: path) }
        defer { withExtendedLifetime(lock) {} }
        let api = try ScanPickAPI(configuration: configuration, log: log)
        try api.prune()
        let server: HTTPServer
        do {
            server = try HTTPServer(
                listen: configuration.listen, limits: configuration.http, tls: tls,
                log: { log(Self.event("http", ["message": $0])) },
                checkHead: { api.checkHead(&$0) }, router: { api.route($0) })
        } catch {
            throw ServeFailure(description: "\(error) (the address is the config's \"listen\" or --listen)")
        }
        log(
            event(
                "listening",
                [
                    "address": server.address.description, "database": configuration.database.description,
                    "scheme": server.servesTLS ? "https" : "http",
                ]))
        // `/metrics` on a listener of its own, when the config gives one (same TLS as the API).
        let metricsServer = try configuration.metrics.listen.map { listen in
            do {
                return try api.startMetricsListener(listen, tls: tls, log: { log(Self.event("http", ["message": $0])) })
            } catch {
                server.stop()
                throw ServeFailure(description: "\(error) (the address is the config's \"metrics.listen\")")
            }
        }
        if let metricsServer { log(event("metrics_listening", ["address": metricsServer.address.description])) }

        // Hourly pruning, and complete batches closed `batches.autoCloseMinutes` after their last change.
        let housekeeping = Housekeeping(api: api, log: log)

        // systemd's watchdog (WatchdogSec=): pinged while no request handler and no commit has been
        // stuck for two minutes (an order feed takes seconds; a commit, milliseconds).
        let watchdog = ServiceManager.Watchdog(log: log)
        watchdog.watch("http-handlers", allowance: Self.stuckAfter) { Int64(clamping: server.longestRunningHandler) }
        watchdog.watch("database-commit", allowance: Self.stuckAfter) { Int64(clamping: api.commitRunningFor) }
        ServiceManager.ready(status: "serving on \(server.address)")
        let signal = await stopSignals.first()
        ServiceManager.stopping()
        watchdog.stop()
        housekeeping.stop()
        log(event("stopping", ["signal": signal == SIGINT ? "SIGINT" : "SIGTERM"]))
        metricsServer?.stop()
        server.stop()
        log(event("stopped", [:]))
        return 0
    }

    /// How long a request handler or a commit may run before the server counts as wedged.
    static let stuckAfter = Duration.seconds(120)

    private static let event = ServerFile.event
}
