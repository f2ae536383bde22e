import ArgumentParsing
import Foundation
import Queue
import Station

extension QueueCommand {
    /// What support's commands take: the station, and who is acting.
    struct Support: CommandArguments {
        var station = StationFile()
        var by = Option<String?>("by", valueName: "NAME", help: "Who does it (recorded; default: $USER).")
    }

    /// Who acts: `--by`, or the login name; never a made-up one (it goes in the station log).
    static func actor(_ support: ParsedArguments<Support>) throws(UsageError) -> String {
        guard let actor = support[\.by] ?? ProcessInfo.processInfo.environment["USER"], ActionQueue.isSupportName(actor)
        else { throw UsageError("say who does this: --by NAME (1–64 characters; $USER is used when set)") }
        return actor
    }

    /// `scanpick queue retry ID [--as-new]`.
    enum Retry: Command {
        struct Arguments: CommandArguments {
            var support = Support()
            var asNew = Flag(
                "as-new",
                help:
                    "Send under a fresh key and the time of now: for an action the server refused as too_old_to_deduplicate after you checked it was never counted (the station log keeps the old key)."
            )
            var id = Argument<Int>("ID", help: "The dead action's id.", in: 1...Int.max)
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(name: "retry", abstract: "Put a dead action back in line (same idempotency key).")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let actor = try actor(arguments[\.support])
            let (queue, id) = (try StationFile.openExisting(arguments[\.support.station.config]).queue, arguments[\.id])
            if arguments[\.asNew] {
                try queue.retryAsNew(id, by: actor)
                StandardStream.output.write(
                    "#\(id) is pending again under a fresh key and the time of now; the station log keeps its old key\n"
                )
            } else {
                try queue.retry(id, by: actor)
                StandardStream.output.write("#\(id) is pending again; it will be sent with its original key\n")
            }
            return 0
        }
    }

    /// `scanpick queue clear ID`.
    enum Clear: Command {
        struct Arguments: CommandArguments {
            var support = Support()
            var id = Argument<Int>("ID", help: "The dead action's id.", in: 1...Int.max)
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "clear", abstract: "Remove a dead action; the station log keeps who, when and what.")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let actor = try actor(arguments[\.support])
            let id = arguments[\.id]
            try StationFile.openExisting(arguments[\.support.station.config]).queue.clear(id, by: actor)
            StandardStream.output.write("#\(id) cleared by \(actor); the station log keeps a full record of it\n")
            return 0
        }
    }

    /// `scanpick queue park ID`.
    enum Park: Command {
        struct Arguments: CommandArguments {
            var support = Support()
            var id = Argument<Int>("ID", help: "The pending action's id.", in: 1...Int.max)
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "park",
                abstract:
                    "Move a pending action behind the rest of the line (one the server keeps failing), or set aside as dead one a pause holds back.",
                discussion: """
                    The action keeps its idempotency key, and the station log records who parked it. Moved
                    behind the rest it takes a new id; it never passes a newer action it does not commute with
                    (a set-quantity or short of its task, or a batch close). While the queue, or the action's
                    organisation, is paused (see scanpick status), the action is set aside as dead instead
                    (e.g. of an organisation no longer configured), to retry or clear later.
                    """)
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let actor = try actor(arguments[\.support])
            let id = arguments[\.id]
            switch try StationFile.openExisting(arguments[\.support.station.config]).queue.park(id, by: actor) {
            case .dead:
                StandardStream.output.write(
                    "#\(id) parked as dead by \(actor): scanpick queue retry \(id) or scanpick queue clear \(id)\n")
            case .movedBehind(let behind, let newId):
                StandardStream.output.write(
                    "#\(id) moved behind the \(behind) actions waiting, as #\(newId), by \(actor); it keeps its key\n")
            }
            return 0
        }
    }
}
