import ArgumentParsing
import Foundation
import Queue
import Station
import Wire

/// `scanpick pick-list`: the open batch as the station has it, with unsent rows marked.
enum PickListCommand: Command {
    struct Arguments: CommandArguments {
        var station = StationFile()
        var json = Flag("json", help: "Print the pick list as JSON.")
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "pick-list",
            abstract:
                "Show the open batch's pick list as the station has it (rows with unsent or refused actions marked).",
            discussion: """
                Marks: ▶ the active task, * an action not yet confirmed sent, ! an action the server refused
                (a dead letter: support retries or clears it with scanpick queue).

                --json prints {"batchId", "org", "closed", "activeTaskId", "tasks": [PickTask with the server's
                field names, plus "pending": true when the row has an action not yet confirmed sent, and
                "refused": true while it has a dead letter]}; "closed" is true once the server has closed the
                batch. With no batch open, batchId and org are null and tasks is empty.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let station = try StationFile.openExisting(arguments[\.station.config])
        guard let open = try station.cache.openBatch() else { throw CacheError.noOpenBatch }
        if arguments[\.json] {
            StandardStream.output.write(try StationJSON.pickList(station) + "\n")
            return 0
        }
        let tasks = try station.cache.tasks()
        let pending = try station.queue.tasksWithUnsentActions(org: open.org)
        let refused = try station.queue.tasksWithRefusedActions(org: open.org)
        let active = try station.cache.activeTask()?.id
        let header = ["", "location", "sku", "barcode", "required", "picked", "locked", "task"]
        let rows = tasks.map { task in
            [
                (task.id == active ? "▶" : " ") + (pending.contains(task.id) ? "*" : " ")
                    + (refused.contains(task.id) ? "!" : " "), task.location, task.sku,
                task.barcode, String(task.qtyRequired), String(task.qtyPicked), String(task.qtyLocked), task.id,
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let lines = ([header] + rows).map { cells in
            cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        StandardStream.output.write(
            "batch \(open.batchId) (\(open.org))   ▶ active   * not yet sent   ! refused (scanpick queue)\n"
                + lines.joined(separator: "\n") + "\n")
        return 0
    }
}
