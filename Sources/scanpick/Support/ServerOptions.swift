import ArgumentParsing
import Server

/// The `--config FILE` and `--database` options the server commands take, and loading what they name.
enum ServerOptions {
    static let config = OptionSpec.value(
        "config", short: "c", valueName: "FILE", help: "Server configuration (default: config/server.json).")
    static let database = OptionSpec.value(
        "database", valueName: "PATH|URL",
        help: "SQLite file, or postgres://… URL or libpq connection string, overriding the file.")

    /// The configuration file, with `--database` applied over it.
    static func load(_ arguments: ParsedArguments) throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.load(path: arguments.value("config") ?? "config/server.json")
        if let database = arguments.value("database") {
            configuration.database = ServerDatabase(commandLine: database)
        }
        return configuration
    }
}
