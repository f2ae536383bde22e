import ArgumentParsing
import Foundation
import Queue
import Station
import Wire

/// `scanpick queue [retry|clear ID]`: the queue table, and support's two actions on dead letters.
enum QueueCommand: Command {
    static let spec = CommandSpec(
        name: "queue",
        abstract: "Show the station's action queue; retry or clear a dead letter.",
        discussion: """
            scanpick queue [--json]          the table: #  action  state  tries (and the last error of dead rows)
            scanpick queue retry ID          put a dead action back in line (same idempotency key)
            scanpick queue clear ID          remove a dead action; the station log keeps who, when and what

            --json prints an array of {"id","org","kind","pickTaskId","state","tries","idempotencyKey",
            "createdAt","nextAttemptAt","lastStatus","lastError"}.
            """,
        options: [
            StationOptions.config,
            .flag("json", help: "Print the queue as JSON."),
            .value("by", valueName: "NAME", help: "Who retries or clears (recorded; default: $USER)."),
        ],
        arguments: [
            ArgumentSpec(name: "ACTION", help: "retry or clear (leave out to show the queue).", optional: true),
            ArgumentSpec(name: "ID", help: "The action's id.", optional: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let station = try StationOptions.load(arguments)
        let queue = station.queue
        guard let verb = arguments.positionals.first else {
            let actions = try queue.actions()
            StandardStream.output.write(arguments.has("json") ? StationJSON.queue(actions) + "\n" : table(actions))
            return 0
        }
        guard arguments.positionals.count == 2, let id = Int(arguments.positionals[1]) else {
            throw UsageError("\(verb) needs the action's id: scanpick queue \(verb) ID")
        }
        let actor = arguments.value("by") ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown"
        switch verb {
        case "retry":
            try queue.retry(id, by: actor)
            StandardStream.output.write("#\(id) is pending again; it will be sent with its original key\n")
        case "clear":
            try queue.clear(id, by: actor)
            StandardStream.output.write("#\(id) cleared by \(actor); the station log keeps a full record of it\n")
        default:
            throw UsageError("unknown action '\(verb)': use retry or clear")
        }
        return 0
    }

    /// The seed's table: `#  action  state  tries`, dead rows marked × with their last error below.
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
