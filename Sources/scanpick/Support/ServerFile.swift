import ArgumentParsing
import ConfigFile
import Foundation
import HTTPServing
import Server
import Wire

/// The `--config FILE` and `--database` options the server commands take (`var server = ServerFile()`).
struct ServerFile: CommandArguments {
    var config = Option<String>(
        "config", short: "c", valueName: "FILE", help: "Server configuration.", default: ConfigLocation.server,
        shown: ConfigLocation.shown(ConfigLocation.server), parse: { $0 })
    var database = Option<String?>(
        "database", valueName: "PATH|URL",
        help: "SQLite file, or postgres://… URL or libpq connection string, overriding the file.")

    /// The configuration file at `path`, with `database` and `listen` (when given) over it.
    static func load(_ path: String, database: String?, listen: ListenAddress? = nil) throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.load(path: path)
        if let listen {
            configuration.listen = listen
            if let metrics = configuration.metrics.listen, let clash = ServerConfiguration.clash(metrics, listen) {
                throw UsageError("--listen \(listen): the config's metrics.listen \(clash)")
            }
        }
        if let database {
            configuration.database = ServerDatabase(commandLine: database)
            if case .sqlite(let file) = configuration.database,
                let problem = DatabaseFolder.problem(
                    forDatabase: file, configFolder: (path as NSString).deletingLastPathComponent, written: database)
            {
                throw UsageError("--database \(problem)")
            }
        }
        return configuration
    }

    /// What `serve` checks of a loaded configuration before it opens anything: the plain-HTTP rule
    /// and the TLS files. Returns the TLS identity to serve with (nil: plain HTTP).
    static func startupCheck(_ configuration: ServerConfiguration) throws -> TLSIdentity? {
        if let refusal = configuration.plainHTTPRefusal { throw ServeFailure(description: refusal) }
        return try configuration.tls.map { try TLSIdentity(certificateFile: $0.certificate, keyFile: $0.key) }
    }

    /// What is legal but probably not meant: said at start-up and by `config check`.
    static func warnings(_ configuration: ServerConfiguration) -> [String] {
        var warnings: [String] = []
        if configuration.organisations.isEmpty {
            warnings.append(
                "no organisations are configured: every API request will be refused 401 (add organisations.ORG.tokenSha256)"
            )
        }
        for (org, hashes) in configuration.organisations.sorted(by: { $0.key < $1.key }) where hashes.isEmpty {
            warnings.append(
                "organisations.\(org) has no tokenSha256: every request for \(org) will be refused 401 (scanpick token new --org \(org) makes a token and its hash)"
            )
        }
        if !configuration.metricsOpenWithoutToken, configuration.metrics.tokenSha256.isEmpty {
            warnings.append(
                "/metrics listens where other machines reach it and no metrics.tokenSha256 is configured: every scrape will be refused 401 (add a scraper's token hash, or set metrics.allowUnauthenticated)"
            )
        }
        return warnings
    }
}

/// Why the server could not start, in the operator's words.
struct ServeFailure: Error, CustomStringConvertible {
    let description: String
}

/// Holds a SQLite database for one `scanpick serve`: SQLite serves one server process (several
/// would each run their own group commit and idempotency checks over one file), so a second serve
/// of the same file is refused instead of running silently. An `flock` on the database file itself,
/// which SQLite's own (fcntl) locks never touch; the kernel lets go of it when the process ends,
/// however it ends.
final class ServeLock {
    private let descriptor: Int32

    /// Who takes the lock, which says what the refusal tells the operator.
    enum Holder { case serve, migrate }

    /// Locks `path` (creating its folder and the file as SQLite would), or throws naming who to stop.
    init(database path: String, for holder: Holder = .serve) throws {
        // First: the lock creates the file, which must be one this user may write (and, as root,
        // not one the service could then not write).
        if let problem = DatabaseFolder.accessProblem(forDatabase: path) { throw ServeFailure(description: problem) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ServeFailure(description: "cannot open the database \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            // No close here: every stored property is set, so `deinit` runs and closes it (a second
            // close could close a descriptor another thread has just been given the number of).
            throw ServeFailure(
                description: holder == .serve
                    ? "another scanpick serve is already using the database \(path): SQLite serves one server process (stop the other, or use PostgreSQL for several)"
                    : "a scanpick serve is using the database \(path): stop it before migrating (systemctl stop scanpick-serve); serve migrates when it starts"
            )
        }
    }

    deinit { close(descriptor) }
}
