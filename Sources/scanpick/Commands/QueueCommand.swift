import ArgumentParsing
import Foundation
import Queue
import Station
import Wire

/// `scanpick queue [retry|clear ID | salvage --to FILE | import FILE]`: the queue table, support's two
/// actions on dead letters, and the way out of a damaged queue database.
enum QueueCommand: Command {
    static let spec = CommandSpec(
        name: "queue",
        abstract: "Show the station's action queue; retry or clear a dead letter.",
        discussion: """
            scanpick queue [--json]          the table: #  action  state  tries (and the last error of dead rows)
            scanpick queue retry ID          put a dead action back in line (same idempotency key)
            scanpick queue retry ID --as-new put it back under a fresh key and the time of now: for one the
                                             server refused as too_old_to_deduplicate after you checked it
                                             was never counted (the station log keeps the old key)
            scanpick queue clear ID          remove a dead action; the station log keeps who, when and what
            scanpick queue salvage --to FILE write every readable unsent action of a damaged queue (with
                                             its key) to FILE as JSON Lines; reads the damaged file only
            scanpick queue import FILE       put salvaged actions into this (fresh) queue with their own
                                             keys; a key already queued is skipped, so nothing goes twice

            --json prints an array of {"id","org","kind","pickTaskId","state","tries","idempotencyKey",
            "createdAt","nextAttemptAt","lastStatus","lastError"}.
            """,
        options: [
            StationOptions.config,
            .flag("json", help: "Print the queue as JSON."),
            .value("by", valueName: "NAME", help: "Who retries, clears or imports (recorded; default: $USER)."),
            .value("to", valueName: "FILE", help: "Where 'salvage' writes the actions (a new file)."),
            .flag("as-new", help: "With 'retry': send under a fresh key (for too_old_to_deduplicate)."),
        ],
        arguments: [
            ArgumentSpec(
                name: "ACTION", help: "retry, clear, salvage or import (leave out to show the queue).", optional: true),
            ArgumentSpec(name: "ID", help: "The action's id (retry, clear) or the file (import).", optional: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        if arguments.positionals.first == "salvage" { return try salvage(arguments) }
        let station = try StationOptions.load(arguments)
        let queue = station.queue
        guard let verb = arguments.positionals.first else {
            let actions = try queue.actions()
            StandardStream.output.write(arguments.has("json") ? StationJSON.queue(actions) + "\n" : table(actions))
            return 0
        }
        // Who does it goes in the station log: --by, or the login name; never a made-up one.
        guard let actor = arguments.value("by") ?? ProcessInfo.processInfo.environment["USER"],
            ActionQueue.isSupportName(actor)
        else { throw UsageError("say who does this: --by NAME (1–64 characters; $USER is used when set)") }
        if verb == "import" {
            guard arguments.positionals.count == 2 else {
                throw UsageError("import needs the file: scanpick queue import FILE")
            }
            return try importFile(arguments.positionals[1], into: queue, by: actor)
        }
        guard arguments.positionals.count == 2, let id = Int(arguments.positionals[1]) else {
            throw UsageError("\(verb) needs the action's id: scanpick queue \(verb) ID")
        }
        switch verb {
        case "retry" where arguments.has("as-new"):
            try queue.retryAsNew(id, by: actor)
            StandardStream.output.write(
                "#\(id) is pending again under a fresh key and the time of now; the station log keeps its old key\n")
        case "retry":
            try queue.retry(id, by: actor)
            StandardStream.output.write("#\(id) is pending again; it will be sent with its original key\n")
        case "clear":
            try queue.clear(id, by: actor)
            StandardStream.output.write("#\(id) cleared by \(actor); the station log keeps a full record of it\n")
        default:
            throw UsageError("unknown action '\(verb)': use retry, clear, salvage or import")
        }
        return 0
    }

    /// Reads what can be read of a (damaged) queue database into a new JSON Lines file.
    private static func salvage(_ arguments: ParsedArguments) throws -> Int32 {
        guard let target = arguments.value("to") else { throw UsageError("salvage needs --to FILE") }
        let configuration = try StationConfiguration.load(path: StationOptions.path(arguments))
        let salvage = try ActionQueue.salvage(path: configuration.databasePath)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes = Data()
        for action in salvage.actions {
            bytes.append(try encoder.encode(action))
            bytes.append(0x0A)
        }
        // A new file only (never over another), readable by its owner alone: it holds the keys.
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StationCommandError(
                "cannot create \(target): \(String(cString: strerror(errno))) (salvage writes a new file)")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: bytes)
        try handle.synchronize()
        try handle.close()
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
        StandardStream.output.write(
            "next: move \(configuration.databasePath) (and its -wal and -shm files) aside, then scanpick queue import \(target)\n"
        )
        return 0
    }

    /// Puts the actions of a salvage file into this queue with their own keys.
    private static func importFile(_ path: String, into queue: ActionQueue, by actor: String) throws -> Int32 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw StationCommandError("\(path) is not a readable file")
        }
        guard (attributes?[.size] as? Int ?? 0) <= 256 << 20 else {
            throw StationCommandError("\(path) is over 256 MiB: not a salvage file")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var actions: [SalvagedAction] = []
        for (index, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            do {
                actions.append(try JSONDecoder().decode(SalvagedAction.self, from: Data(line)))
            } catch {
                throw QueueError.badImport(line: index + 1, "not a salvaged action (\(error))")
            }
        }
        let result = try queue.importActions(actions, from: path, by: actor)
        StandardStream.output.write(
            "imported \(result.imported) actions with their keys"
                + (result.alreadyQueued > 0 ? "; \(result.alreadyQueued) were already in the queue" : "") + "\n")
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
