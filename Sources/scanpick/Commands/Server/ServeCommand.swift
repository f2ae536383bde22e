import ArgumentParsing
import Foundation
import HTTPServing
import Lifecycle
import Logging
import Server

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
        // orderly shutdown, not the default's sudden end.
        let signals = UnixSignals.takeOver()
        // A log reader that went away (a closed pipe on standard error) costs lines, not the server.
        signal(SIGPIPE, SIG_IGN)
        let logger = Logger(sink: .standardError)
        defer { logger.flush() }
        let server: APIServer
        var lock: ServeLock?
        do {
            let configuration = try ServerFile.load(
                arguments[\.server.config], database: arguments[\.server.database], listen: arguments[\.listen])
            let tls = try ServerFile.startupCheck(configuration)
            for warning in ServerFile.warnings(configuration) {
                logger.warning("warning", ["message": .string(warning)])
            }
            if case .sqlite(let path) = configuration.database { lock = try ServeLock(database: path) }
            server = try APIServer(configuration: configuration, tls: tls, logger: logger)
        } catch let error as UsageError {
            throw error
        } catch {
            logger.error("start_failed", ["message": "\(error)"])
            return 1
        }
        defer { withExtendedLifetime(lock) {} }
        do {
            try await server.run(stopSignals: signals.stops)
        } catch {
            return 1  // the group has logged which service failed, and why
        }
        return 0
    }
}
