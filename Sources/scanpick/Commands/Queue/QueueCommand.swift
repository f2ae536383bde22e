import ArgumentParsing
import Foundation
import Queue
import Station

/// `scanpick queue [show] | retry|clear|park ID | salvage --to FILE | import FILE`: the queue table,
/// support's actions on dead letters (and on an action a pause holds back), and the way out of a
/// damaged queue database.
enum QueueCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "queue",
            abstract: "Show the station's action queue; retry or clear a dead letter; salvage a damaged queue.",
            discussion: """
                Who retries, clears, parks or imports is recorded in the station log (--by NAME, or $USER).
                A damaged queue database is saved with salvage, moved aside, and its actions imported
                into a fresh one: nothing is lost and nothing goes twice.
                """,
            subcommands: [Show.self, Retry.self, Clear.self, Park.self, Salvage.self, Import.self],
            defaultSubcommand: Show.self)
    }

    /// `scanpick queue [show] [--json]`.
    enum Show: Command {
        struct Arguments: CommandArguments {
            var station = StationFile()
            var json = Flag(
                "json",
                help:
                    "Print an array of {\"id\",\"org\",\"kind\",\"pickTaskId\",\"state\",\"tries\",\"idempotencyKey\",\"createdAt\",\"nextAttemptAt\",\"lastStatus\",\"lastError\",\"label\"}."
            )
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "show",
                abstract: "Show the queue: each action's id, label, state and tries (and the last error of dead ones).")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let actions = try StationFile.openExisting(arguments[\.station.config]).queue.actions()
            StandardStream.output.write(arguments[\.json] ? try StationJSON.queue(actions) + "\n" : table(actions))
            return 0
        }
    }

    /// The queue as a table: `#  action  state  tries`, dead rows marked × with their last error below.
    static func table(_ actions: [QueuedAction]) -> String {
        guard !actions.isEmpty else { return "the queue is empty\n" }
        let rows = actions.map { action in
            [
                action.state == .dead ? "×" : String(action.id), action.label, action.state.rawValue,
                String(action.tries),
            ]
        }
        let header = ["#", "action", "state", "tries"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        var lines = [line(header)]
        for (action, row) in zip(actions, rows) {
            lines.append(line(row))
            if action.state == .dead {
                let status = action.lastStatus.map(String.init) ?? "—"
                lines.append(
                    "   #\(action.id) refused \(status): \(action.lastError ?? "") (scanpick queue retry|clear \(action.id))"
                )
            } else if action.state == .pending, let error = action.lastError {
                lines.append("   last try: \(error)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
