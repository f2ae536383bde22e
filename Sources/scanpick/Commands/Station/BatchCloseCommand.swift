import ArgumentParsing
import Station
import Wire

extension BatchCommand {
    /// `scanpick batch close ID [--org ORG]`: finish a batch, as the page's "Finish batch" does.
    enum Close: Command {
        typealias Arguments = BatchTarget

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "close",
                abstract:
                    "Close a batch: no more picks count on it, and its unpicked units go back to the pool.",
                discussion: """
                    A batch whose tasks are all done (picked or short) is complete: it still takes corrections
                    until it is closed, as here, by the page's "Finish batch", or by the server
                    (batches.autoCloseMinutes after its last change). A batch this station has opened is closed
                    through its queue, after the taps queued before it: it counts as closed here at once, and the
                    queue is sent now (when the server cannot be reached, or the running station is sending it,
                    the close waits in the queue). Any other batch is closed on the server at once. The order
                    lines it left unpicked then go into the next batch, which requires only what is left. Picks
                    on a closed batch are refused (409 batch_closed); a station that has it open says the batch
                    is over and offers the next one.
                    """)
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let station = try StationFile.open(arguments[\.station.config])
            let org = try station.organisation(named: arguments[\.org], preferOpenBatch: true)
            switch try await station.closeBatch(arguments[\.id], org: org) {
            case .closed(let batch):
                let left = batch.tasks.filter { !$0.isComplete }.count
                let short = batch.tasks.reduce(0) { $0 + min(max($1.qtyShort, 0), 1_000_000_000) }
                StandardStream.output.write(
                    "closed batch \(batch.id) (\(org))\(batch.closedAt.map { " at \($0)" } ?? ""): "
                        + (left == 0
                            ? "every task was done"
                            : left == 1
                                ? "1 unfinished task goes back to the pool for the next batch"
                                : "\(left) unfinished tasks go back to the pool for the next batch")
                        + (short == 0
                            ? "\n"
                            : short == 1
                                ? "; the unit reported short goes back too\n"
                                : "; the \(short) units reported short go back too\n"))
            case .queued(let id, let ahead):
                StandardStream.output.write(
                    "queued #\(id) close \(arguments[\.id]) (\(org)): closed on this station; sent to the server "
                        + (ahead == 0 ? "when it can be reached\n" : "after the \(ahead) actions before it\n"))
            }
            return 0
        }
    }
}
