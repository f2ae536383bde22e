import ArgumentParsing
import Foundation
import Queue
import Station

extension QueueCommand {
    /// `scanpick queue import FILE`.
    enum Import: Command {
        struct Arguments: CommandArguments {
            var support = Support()
            var file = Argument<String>("FILE", help: "A file written by 'scanpick queue salvage'.")
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "import",
                abstract:
                    "Put salvaged actions into this (fresh) queue with their own keys; a key already queued is skipped, so nothing goes twice."
            )
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let actor = try actor(arguments[\.support])
            let file = arguments[\.file]
            let station = try StationFile.open(arguments[\.support.station.config])
            let result = try station.queue.importActions(
                try SalvageFile.read(file), from: file, by: actor,
                organisations: Set(station.configuration.organisations.keys))
            StandardStream.output.write(
                "imported \(result.imported) actions with their keys"
                    + (result.alreadyQueued > 0 ? "; \(result.alreadyQueued) were already in the queue" : "") + "\n")
            return 0
        }
    }
}
