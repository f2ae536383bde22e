import ArgumentParsing
import Foundation
import Server

/// `scanpick migrate`: bring the server's database schema up to date without serving.
enum MigrateCommand: Command {
    static let spec = CommandSpec(
        name: "migrate",
        abstract: "Apply the server database's pending schema migrations, then exit.",
        discussion: """
            `scanpick serve` applies pending migrations when it starts; this does only that, for a
            deployment that migrates before it rolls out new servers. It prints each migration applied,
            or that the schema is up to date, and refuses (exit 1) a database whose schema is newer than
            this scanpick knows. Several servers or migrations at once on one PostgreSQL database are
            safe: the migrations run under an advisory lock, in one transaction.
            """,
        options: [
            .value(
                "config", short: "c", valueName: "FILE", help: "Server configuration (default: config/server.json)."),
            .value(
                "database", valueName: "PATH|URL",
                help: "SQLite file, or postgres://… URL or libpq connection string, overriding the file."),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        var configuration = try ServerConfiguration.load(path: arguments.value("config") ?? "config/server.json")
        if let database = arguments.value("database") {
            configuration.database = ServerDatabase(commandLine: database)
        }
        let applied = try ScanPickAPI.migrate(configuration.database)
        if applied.isEmpty {
            StandardStream.output.write("schema up to date (\(configuration.database))\n")
        } else {
            for identifier in applied { StandardStream.output.write("applied \(identifier)\n") }
        }
        return 0
    }
}
