import ArgumentParsing
import JSONText
import Queue
import Station
import Wire

/// `scanpick tap pick|qty|short TASK [--org ORG] ...`: queue a tap and return at once, online or
/// offline.
enum TapCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "tap",
            abstract:
                "Queue a picker's tap (pick N more, set the quantity, or report N short) and return at once.",
            discussion: """
                The tap is durable in the station's queue when this returns (never waiting for the server),
                with an idempotency key made now; the drainer sends it when the server is reachable. A task
                of the open batch changes in the pick list with it, and the station refuses at once what the
                server would (units already in a box, over-picks).
                """,
            subcommands: [Pick.self, Qty.self, Short.self])
    }

    /// What both taps take.
    struct Target: CommandArguments {
        var station = StationFile()
        var org = Option<String?>(
            "org", valueName: "ORG",
            help: "The organisation the task belongs to (default: the open batch's, or the only configured one).")
        var json = Flag("json", help: "Print {\"id\", \"idempotencyKey\", \"label\"}.")
        var outsideBatch = Flag(
            "outside-batch",
            help:
                "Queue it even though the task is not in the open batch "
                + "(support: the server judges it; without this the station refuses it).")
        var task = Argument<String>("TASK", help: "The pick task's id.")
    }

    /// `scanpick tap pick TASK [--org ORG] [--qty N]`.
    enum Pick: Command {
        struct Arguments: CommandArguments {
            var target = Target()
            var qty = Option<Int>(
                "qty", valueName: "N", help: "Units picked.", default: 1, in: StationTaps.pickQuantities)
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(name: "pick", abstract: "Pick N more units of a task.")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            try record(.pick(qty: arguments[\.qty]), arguments[\.target])
        }
    }

    /// `scanpick tap qty TASK [--org ORG] --from A --to B`.
    enum Qty: Command {
        struct Arguments: CommandArguments {
            var target = Target()
            var from = Option<Int>(
                "from", valueName: "A", help: "The count the picker saw.", in: StationTaps.setQuantities)
            var to = Option<Int>("to", valueName: "B", help: "The count to set.", in: StationTaps.setQuantities)
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(name: "qty", abstract: "Set a task's picked count from A (as seen) to B.")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            try record(.setQty(from: arguments[\.from], to: arguments[\.to]), arguments[\.target])
        }
    }

    /// `scanpick tap short TASK [--org ORG] --qty N --reason R`.
    enum Short: Command {
        struct Arguments: CommandArguments {
            var target = Target()
            var qty = Option<Int>(
                "qty", valueName: "N", help: "Units that will not be picked.", in: StationTaps.pickQuantities)
            var reason = Option<ShortReason>(
                "reason", valueName: "R", help: "Why: \(ShortReason.choices).", parse: ShortReason.parse)
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "short",
                abstract: "Report N units of a task that will not be picked (done when picked + short reach required).")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            try record(.short(qty: arguments[\.qty], reason: arguments[\.reason]), arguments[\.target])
        }
    }

    /// Queues the tap and prints what was queued.
    private static func record(_ tap: Tap, _ target: ParsedArguments<Target>) throws -> Int32 {
        let station = try StationFile.open(target[\.station.config])
        let org = try station.organisation(named: target[\.org], preferOpenBatch: true)
        let id = try station.taps.record(tap, task: target[\.task], org: org, outsideBatch: target[\.outsideBatch])
        guard let action = try station.queue.action(id) else { return 1 }
        if target[\.json] {
            var line = JSONObjectWriter()
            line.add("id", number: id)
            line.add("idempotencyKey", string: action.idempotencyKey)
            line.add("label", string: action.label)
            StandardStream.output.write(line.finished() + "\n")
        } else {
            StandardStream.output.write("queued #\(id) \(action.label) (pending: sent when the server is reachable)\n")
        }
        return 0
    }
}
