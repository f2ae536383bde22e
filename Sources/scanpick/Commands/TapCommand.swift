import ArgumentParsing
import Foundation
import Queue
import Station
import Wire

/// `scanpick tap pick|qty TASK --org ORG ...`: queue a tap and return at once, online or offline.
enum TapCommand: Command {
    static let spec = CommandSpec(
        name: "tap",
        abstract: "Queue a picker's tap (pick N more, or set the quantity) and return at once.",
        discussion: """
            scanpick tap pick TASK --org ORG [--qty N]       pick N more units (default 1)
            scanpick tap qty TASK --org ORG --from A --to B  set the picked count from A to B

            The tap is durable in the station's queue when this returns (never waiting for the server),
            with an idempotency key made now; the drainer sends it when the server is reachable.
            """,
        options: [
            StationOptions.config,
            .value("org", valueName: "ORG", help: "The organisation the task belongs to. Required."),
            .value("qty", valueName: "N", help: "Units picked by a 'pick' tap (default 1)."),
            .value("from", valueName: "A", help: "A 'qty' tap: the count the picker saw."),
            .value("to", valueName: "B", help: "A 'qty' tap: the count to set."),
            .flag("json", help: "Print {\"id\", \"idempotencyKey\", \"label\"}."),
        ],
        arguments: [
            ArgumentSpec(name: "KIND", help: "pick or qty."),
            ArgumentSpec(name: "TASK", help: "The pick task's id."),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let (kind, task) = (arguments.positionals[0], arguments.positionals[1])
        guard let org = arguments.value("org") else { throw UsageError("--org ORG is required") }
        let station = try StationOptions.load(arguments)
        _ = try station.configuration.organisation(org)
        let worker = station.configuration.worker
        // A task of the open batch goes through the pick list: its row flips with the action, and
        // the station refuses at once what the server would (units already in a box, over-picks).
        if let open = try station.cache.openBatch(), open.org == org,
            try station.cache.tasks().contains(where: { $0.id == task })
        {
            let result: StationTaps.Result
            switch kind {
            case "pick":
                result = try station.taps.pick(
                    task, qty: try arguments.integer("qty", in: StationTaps.pickQuantities) ?? 1)
            case "qty":
                guard let from = try arguments.integer("from", in: StationTaps.setQuantities),
                    let to = try arguments.integer("to", in: StationTaps.setQuantities)
                else { throw UsageError("a 'qty' tap needs --from A and --to B") }
                result = try station.taps.setQty(task, from: from, to: to)
            default: throw UsageError("KIND must be 'pick' or 'qty', not '\(kind)'")
            }
            return try report(station, id: result.actionId, json: arguments.has("json"))
        }
        let action: NewAction
        switch kind {
        case "pick":
            let qty = try arguments.integer("qty", in: StationTaps.pickQuantities) ?? 1
            action = .pick(org: org, pickTaskId: task, location: nil, qty: qty, worker: worker)
        case "qty":
            guard let from = try arguments.integer("from", in: StationTaps.setQuantities),
                let to = try arguments.integer("to", in: StationTaps.setQuantities)
            else { throw UsageError("a 'qty' tap needs --from A and --to B") }
            action = .setQty(org: org, pickTaskId: task, location: nil, from: from, to: to, worker: worker)
        default:
            throw UsageError("KIND must be 'pick' or 'qty', not '\(kind)'")
        }
        return try report(station, id: try station.queue.enqueue(action), json: arguments.has("json"))
    }

    private static func report(_ station: PickStation, id: Int, json: Bool) throws -> Int32 {
        guard let action = try station.queue.action(id) else { return 1 }
        if json {
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
