import ArgumentParsing
import Station
import Wire

extension BatchCommand {
    /// `scanpick batch close ID [--org ORG]`: a supervisor ends a batch on the server.
    enum Close: Command {
        typealias Arguments = BatchTarget

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "close",
                abstract:
                    "Close a batch on the server: no more picks count on it, and its unpicked units go back to the pool.",
                discussion: """
                    A batch whose tasks are all complete closes by itself. Closing one by hand (needs the server) lets
                    the order lines it left unpicked go into the next batch, which requires only what is left. Picks
                    on a closed batch are refused (409 batch_closed); a station that has it open says the batch is
                    over and offers the next one.
                    """)
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let station = try StationFile.open(arguments[\.station.config])
            let org = try station.organisation(named: arguments[\.org], preferOpenBatch: true)
            let batch = try await station.closeBatch(arguments[\.id], org: org)
            let left = batch.tasks.filter { !$0.isComplete }.count
            StandardStream.output.write(
                "closed batch \(batch.id) (\(org))\(batch.closedAt.map { " at \($0)" } ?? ""): "
                    + (left == 0
                        ? "every task was complete\n"
                        : "\(left) unfinished tasks go back to the pool for the next batch\n"))
            return 0
        }
    }
}
