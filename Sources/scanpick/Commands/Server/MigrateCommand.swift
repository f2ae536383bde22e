import ArgumentParsing
import Foundation
import Server

/// `scanpick migrate`: bring the server's database schema up to date without serving.
enum MigrateCommand: Command {
    struct Arguments: CommandArguments {
        var server = ServerFile()
        var status = Flag("status", help: "List the migrations applied (with when) and pending; change nothing.")
        var dryRun = Flag("dry-run", help: "Say which migrations would run; change nothing.")
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
                safe: the migrations run under an advisory lock, in one transaction. --status lists every
                migration applied (with when) and pending; --dry-run says which would run; both read only,
                beside a running server too, and exit 1 for a schema newer than this scanpick.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let configuration = try ServerFile.load(arguments[\.server.config], database: arguments[\.server.database])
        if arguments[\.status] || arguments[\.dryRun] { return try report(configuration, status: arguments[\.status]) }
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

    /// `--status` and `--dry-run`: what the database has applied and what would run, read only.
    static func report(_ configuration: ServerConfiguration, status: Bool) throws -> Int32 {
        let (applied, pending, unknown) = try ScanPickAPI.migrationStatus(configuration.database)
        var lines: [String] = []
        if status {
            lines += applied.map { "applied  \($0.identifier)  \($0.appliedAt)" } + pending.map { "pending  \($0)" }
        } else {
            lines += pending.map { "would apply \($0)" }
        }
        lines += unknown.map { "unknown  \($0) (applied by a newer scanpick: this one refuses the database)" }
        if unknown.isEmpty, pending.isEmpty, !status { lines.append("schema up to date (\(configuration.database))") }
        StandardStream.output.write(lines.map { $0 + "\n" }.joined())
        return unknown.isEmpty ? 0 : 1
    }
}
