import ArgumentParsing
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
}
