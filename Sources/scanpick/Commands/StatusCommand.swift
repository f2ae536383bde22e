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
            StandardStream.output.write(StationJSON.status(online: online, counts: counts) + "\n")
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
