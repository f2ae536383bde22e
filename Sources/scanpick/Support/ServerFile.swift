import ArgumentParsing
import HTTPServing
import Server

/// The `--config FILE` and `--database` options the server commands take (`var server = ServerFile()`).
struct ServerFile: CommandArguments {
    var config = Option<String>(
        "config", short: "c", valueName: "FILE", help: "Server configuration.", default: "config/server.json")
    var database = Option<String?>(
        "database", valueName: "PATH|URL",
        help: "SQLite file, or postgres://… URL or libpq connection string, overriding the file.")

    /// The configuration file at `path`, with `database` (when given) over it.
    static func load(_ path: String, database: String?) throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.load(path: path)
        if let database { configuration.database = ServerDatabase(commandLine: database) }
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
        configuration.organisations.isEmpty
            ? [
                "no organisations are configured: every API request will be refused 401 (add organisations.ORG.tokenSha256)"
            ]
            : []
    }
}

/// Why the server could not start, in the operator's words.
struct ServeFailure: Error, CustomStringConvertible {
    let description: String
}
