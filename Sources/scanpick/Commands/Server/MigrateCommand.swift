import ArgumentParsing
import Foundation
import Server

/// `scanpick migrate`: bring the server's database schema up to date without serving.
enum MigrateCommand: Command {
    struct Arguments: CommandArguments {
        var server = ServerFile()
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "migrate",
            abstract: "Apply the server database's pending schema migrations, then exit.",
            discussion: """
                `scanpick serve` applies pending migrations when it starts; this does only that, for a
                deployment that migrates before it rolls out new servers. It prints each migration applied,
                or that the schema is up to date, and refuses (exit 1) a database whose schema is newer than
                this scanpick knows. Several servers or migrations at once on one PostgreSQL database are
                safe: the migrations run under an advisory lock, in one transaction.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let configuration = try ServerFile.load(arguments[\.server.config], database: arguments[\.server.database])
        // A running SQLite server keeps serving the schema it started with: migrate beside it refused.
        var lock: ServeLock?
        if case .sqlite(let path) = configuration.database { lock = try ServeLock(database: path, for: .migrate) }
        let applied = try withExtendedLifetime(lock) { try ScanPickAPI.migrate(configuration.database) }
        if applied.isEmpty {
            StandardStream.output.write("schema up to date (\(configuration.database))\n")
        } else {
            for identifier in applied { StandardStream.output.write("applied \(identifier)\n") }
        }
        return 0
    }
}
