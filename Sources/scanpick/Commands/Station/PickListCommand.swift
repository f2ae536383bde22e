import ArgumentParsing
import Foundation
import Queue
import Station
import TerminalText
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

                The name column shows the product's name, or its SKU when the order line has none; short is
                the units reported short (a task is done when picked + short reach required).

                --json prints {"batchId", "org", "status", "closed", "activeTaskId", "tasks": [PickTask with
                the server's field names, plus "pending": true when the row has an action not yet confirmed
                sent, and "refused": true while it has a dead letter]}; "status" is open, complete (every task
                done; corrections still count) or closed (finished here, or closed on the server), and
                "closed" is true once it is closed. With no batch open, batchId, org and status are null and
                tasks is empty.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let station = try StationFile.openExisting(arguments[\.station.config])
        guard let open = try station.cache.openBatch() else { throw CacheError.noOpenBatch }
        if arguments[\.json] {
            StandardStream.output.write(TerminalText.jsonSafe(try StationJSON.pickList(station)) + "\n")
            return 0
        }
        let tasks = try station.cache.tasks()
        let pending = try station.queue.tasksWithUnsentActions(org: open.org)
        let refused = try station.queue.tasksWithRefusedActions(org: open.org)
        let active = try station.cache.activeTask()?.id
        let header = ["", "location", "name", "tote", "barcode", "required", "picked", "short", "locked", "task"]
        let rows = tasks.map { task in
            [
                (task.id == active ? "▶" : " ") + (pending.contains(task.id) ? "*" : " ")
                    + (refused.contains(task.id) ? "!" : " "), task.location, task.displayName,
                task.tote.map(String.init) ?? "", task.barcode, String(task.qtyRequired), String(task.qtyPicked),
                String(task.qtyShort), String(task.qtyLocked), task.id,
            ].map(TerminalText.printable)
        }
        // Every column padded to its widest cell but the last, so no line ends in spaces.
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let lines = ([header] + rows).map { cells in
            cells.enumerated().map { cell in
                cell.offset == cells.count - 1
                    ? cell.element : cell.element.padding(toLength: widths[cell.offset], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        let status = try station.cache.openBatchState()?.status ?? "open"
        StandardStream.output.write(
            "batch \(TerminalText.printable(open.batchId)) (\(open.org)) \(status)   ▶ active   * not yet sent   ! refused (scanpick queue)\n"
                + lines.joined(separator: "\n") + "\n")
        return 0
    }
}
