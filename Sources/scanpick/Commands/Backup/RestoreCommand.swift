import ArgumentParsing
import Foundation
import Timestamps

/// `scanpick restore --from FILE -c CONFIG`: a backup put back in place of the database a
/// configuration names, with its service stopped; the database it replaces is kept beside it.
enum RestoreCommand: Command {
    struct Arguments: CommandArguments {
        var from = Option<String>("from", valueName: "FILE", help: "The backup to put back (from scanpick backup).")
        var database = DatabaseFile.Options()
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "restore",
            abstract: "Put a backup back in place of the server's database or a station's queue (service stopped).",
            discussion: """
                Refuses while any process has the database open (stop the service first), and a backup
                that is not a sound ScanPick database (PRAGMA quick_check, its schema_migrations). The
                database it replaces, with its -wal and -shm, is moved aside to DATABASE.replaced-TIME;
                the backup is copied in with the old file's owner. Start the service again afterwards:
                the server migrates an older backup as it starts. Exit 0 when restored, 1 when not.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let file = try DatabaseFile(config: arguments[\.database.config], kind: arguments[\.database.kind])
        let backup = arguments[\.from]
        let holders = file.holders()
        guard holders.isEmpty else {
            throw StationCommandError(
                "\(file.path) is open in process \(holders.joined(separator: ", ")): stop it first (systemctl stop \(file.unit)), then restore"
            )
        }
        try DatabaseFile.checkSound(backup)
        let aside = try file.moveAside(
            suffix: "replaced-" + Timestamp.iso8601(Date()).replacingOccurrences(of: ":", with: ""))
        try file.copyIn(backup, owner: aside.owner)
        StandardStream.output.write(
            "restored \(backup) to \(file.path)\(aside.path.map { "; the database it replaced is \($0)" } ?? ""); start \(file.unit) again\n"
        )
        return 0
    }
}
