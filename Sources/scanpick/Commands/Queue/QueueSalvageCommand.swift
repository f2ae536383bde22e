import ArgumentParsing
import Queue
import Station

extension QueueCommand {
    /// `scanpick queue salvage --to FILE`: the way out of a damaged queue database.
    enum Salvage: Command {
        struct Arguments: CommandArguments {
            var station = StationFile()
            var to = Option<String>("to", valueName: "FILE", help: "Where the actions are written (a new file).")
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "salvage",
                abstract:
                    "Write every readable unsent action of a damaged queue (with its key) to FILE as JSON Lines; reads the damaged file only."
            )
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let target = arguments[\.to]
            let configuration = try StationConfiguration.load(path: arguments[\.station.config])
            let salvage = try ActionQueue.salvage(path: configuration.databasePath)
            try SalvageFile.write(salvage.actions, to: target)
            let dead = salvage.actions.filter { $0.state == "dead" }.count
            StandardStream.output.write(
                "salvaged \(salvage.actions.count) unsent actions (\(salvage.actions.count - dead) to send, \(dead) dead) to \(target)\n"
            )
            if !salvage.unreadable.isEmpty {
                let shown = salvage.unreadable.prefix(20).map { missing in
                    "#\(missing.id)" + (missing.idempotencyKey.map { " (key \($0))" } ?? "")
                }
                StandardStream.output.write(
                    "\(salvage.unreadable.count) actions could not be read (\(shown.joined(separator: ", "))\(salvage.unreadable.count > 20 ? ", …" : "")): ask the server whether it has their keys\n"
                )
            }
            if !salvage.unaccounted.isEmpty {
                let ranges = salvage.unaccounted.prefix(20).map {
                    $0.count == 1 ? "#\($0.lowerBound)" : "#\($0.lowerBound)–#\($0.upperBound)"
                }
                StandardStream.output.write(
                    "ids not accounted for (sent and pruned, cleared, or lost with the damage; no index read whole): \(ranges.joined(separator: ", "))\(salvage.unaccounted.count > 20 ? ", …" : ""): compare with the server\n"
                )
            }
            if salvage.unreadable.isEmpty && salvage.unaccounted.isEmpty {
                StandardStream.output.write("no action is missing: every id the file lists was read\n")
            }
            StandardStream.output.write(
                "next: move \(configuration.databasePath) (and its -wal and -shm files) aside, then scanpick queue import \(target)\n"
            )
            return 0
        }
    }
}
