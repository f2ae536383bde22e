import ArgumentParsing
import Foundation
import Queue
import Station
import Wire

/// `scanpick status`: the pill — online or offline, pending, in flight, dead, last sync.
enum StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show the station's status pill: online/offline, pending, in flight, dead, last sync.",
        discussion: """
            Online means the server answered GET /health just now (a short probe). --json prints
            {"online", "pending", "inFlight", "dead", "lastSyncAt"}.
            """,
        options: [StationOptions.config, .flag("json", help: "Print the status as JSON.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let station = try StationOptions.load(arguments)
        let online = await station.probe()
        let counts = try station.queue.counts()
        if arguments.has("json") {
            var object = JSONObjectWriter()
            object.add("online", bool: online)
            object.add("pending", number: counts.pending)
            object.add("inFlight", number: counts.inFlight)
            object.add("dead", number: counts.dead)
            if let last = counts.lastSyncAt {
                object.add("lastSyncAt", string: last)
            } else {
                object.add("lastSyncAt", raw: "null")
            }
            StandardStream.output.write(object.finished() + "\n")
        } else {
            let pill = [
                online ? "online" : "offline", "\(counts.pending) pending", "\(counts.inFlight) in flight",
                "\(counts.dead) dead", "last sync \(counts.lastSyncAt ?? "never")",
            ]
            StandardStream.output.write(pill.joined(separator: " · ") + "\n")
        }
        return 0
    }
}
