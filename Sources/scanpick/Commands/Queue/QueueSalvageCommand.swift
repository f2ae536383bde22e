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
                let ids = salvage.unreadable.prefix(20).map { "#\($0)" }.joined(separator: ", ")
                StandardStream.output.write(
                    "\(salvage.unreadable.count) rows could not be read (\(ids)\(salvage.unreadable.count > 20 ? ", …" : "")): compare with the server\n"
                )
            }
            if let stopped = salvage.stoppedAfter {
                StandardStream.output.write(
                    "the damage went on past #\(stopped): no later row was read; compare with the server\n")
            }
            StandardStream.output.write(
                "next: move \(configuration.databasePath) (and its -wal and -shm files) aside, then scanpick queue import \(target)\n"
            )
            return 0
        }
    }
}
