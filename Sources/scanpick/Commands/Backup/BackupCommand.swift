import ArgumentParsing
import Foundation
import SQLiteStorage

/// `scanpick backup --to FILE -c CONFIG`: a consistent copy of the SQLite database a server's or a
/// station's configuration names, made while the service runs.
enum BackupCommand: Command {
    struct Arguments: CommandArguments {
        var to = Option<String>("to", valueName: "FILE", help: "The new file to copy the database into.")
        var database = DatabaseFile.Options()
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "backup",
            abstract: "Copy the server's SQLite database or a station's queue, consistently, while it runs.",
            discussion: """
                SQLite's online backup API copies the database as one snapshot (what a transaction starting
                then would see) while the service keeps writing; the copy is then checked (PRAGMA
                quick_check). Run it as the service's user (sudo -u scanpick scanpick backup …). FILE must
                not exist. For PostgreSQL use pg_dump (see the README). Exit 0 when the copy is made and
                sound, 1 when not (no file is left).
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let file = try DatabaseFile(config: arguments[\.database.config], kind: arguments[\.database.kind])
        let destination = arguments[\.to]
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw StationCommandError("\(file.path) does not exist: there is no database to back up yet")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StationCommandError("\(destination) exists already: choose a new file")
        }
        do {
            try Database(readingOnly: file.path).backup(to: destination)
            try DatabaseFile.checkSound(destination)
        } catch {
            unlink(destination)
            throw error
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        StandardStream.output.write(
            "backed up \(file.path) to \(destination) (\(size) bytes, sound); to put it back, stop \(file.unit) and run scanpick restore --from \(destination) -c \(arguments[\.database.config])\n"
        )
        return 0
    }
}
