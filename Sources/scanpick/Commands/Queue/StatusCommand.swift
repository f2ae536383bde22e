import ArgumentParsing
import Foundation
import Queue
import Station
import TerminalText
import Wire

/// `scanpick status`: the pill — online or offline, pending, in flight, dead, last sync — the server it
/// probes, and anything that needs a person.
enum StatusCommand: Command {
    struct Arguments: CommandArguments {
        var station = StationFile()
        var json = Flag("json", help: "Print the status as JSON.")
        var check = Flag(
            "check", help: "Print one line for monitoring: ok, or every reason it is not (the exit code says which).")
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "status",
            abstract: "Show the station's status pill: online/offline, pending, in flight, dead, last sync, attention.",
            discussion: """
                Online means something answered GET /health at the configured server just now (a short
                probe); the second line names that server. "needs attention" lines say what a person must
                fix: a queue paused because the server refused the station itself (a wrong token, a wrong
                base URL, TLS), with what to change.

                --json prints {"online", "serverReady", "server", "pending", "inFlight", "dead", "oldestPendingAt",
                "lastSyncAt", "attention": [{"code", "message"}]}; serverReady is false when the server answers
                but its database does not (it cannot take work now), null when it did not say; oldestPendingAt
                is when the oldest action not yet sent was queued, null when none waits.

                Exit code 0 when the server answers and is ready and nothing needs attention, 2 when something
                needs attention (dead letters too), 3 when the server cannot be reached or cannot take work (1: the status could
                not be read). --check prints one line for a monitoring system, "ok: …" or the reasons.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        // Status also answers before the station first ran (is the server reachable?), so a missing
        // database is made; but a mistyped path must not pass for an empty queue.
        let configuration = try StationConfiguration.load(path: arguments[\.station.config])
        let databaseExisted = FileManager.default.fileExists(atPath: configuration.databasePath)
        let station = try PickStation.overHTTP(configuration)
        let probe = await station.probe()
        let online = probe.reachable
        let counts = try station.queue.counts()
        // The queue's pauses, and what a running station noticed (kept in its database).
        var attention = StationJSON.attention(station, others: try station.queue.stationAttention())
        if let problem = probe.storageProblem, !attention.contains(problem) { attention.append(problem) }
        if !databaseExisted {
            attention.append(
                Attention(
                    code: "queue_created",
                    message:
                        "the queue database \(configuration.databasePath) did not exist and was made empty just now: if this station has run before, \"database\" in \(arguments[\.station.config]) names the wrong file"
                ))
        }
        let server = station.transport.server
        // Why a monitoring system should page someone, worst first.
        var reasons: [String] = []
        if !online {
            reasons.append("offline: the server \(ServerURL.redacted(server)) cannot be reached")
        } else if probe.databaseReady == false {
            reasons.append(
                "the server \(ServerURL.redacted(server)) answers, but its database does not: it cannot take work")
        }
        reasons += attention.map { "needs attention: \(TerminalText.printable($0.message))" }
        if counts.dead > 0 {
            reasons.append(
                "\(counts.dead) dead letter\(counts.dead == 1 ? "" : "s"): support retries or clears each (scanpick queue show)"
            )
        }
        let exitCode: Int32 = !online || probe.databaseReady == false ? 3 : reasons.isEmpty ? 0 : 2
        if arguments[\.check] {
            let fine =
                "ok: online, \(counts.pending) pending, \(counts.dead) dead, last sync \(counts.lastSyncAt ?? "never")"
            StandardStream.output.write((reasons.isEmpty ? fine : reasons.joined(separator: "; ")) + "\n")
        } else if arguments[\.json] {
            // Attention messages may quote the server: safe for a terminal, as JSON's own escapes.
            StandardStream.output.write(
                TerminalText.jsonSafe(
                    try StationJSON.status(
                        online: online, serverReady: probe.databaseReady, server: server, counts: counts,
                        attention: attention)) + "\n")
        } else {
            let pill = [
                online ? "online" : "offline", "\(counts.pending) pending", "\(counts.inFlight) in flight",
                "\(counts.dead) dead", "last sync \(counts.lastSyncAt ?? "never")",
            ]
            let readiness =
                probe.databaseReady == false ? " (answers, but its database does not: it cannot take work now)" : ""
            var lines = [pill.joined(separator: " · "), "server \(ServerURL.redacted(server))\(readiness)"]
            lines += reasons.filter { $0.hasPrefix("needs attention: ") }
            StandardStream.output.write(lines.joined(separator: "\n") + "\n")
        }
        return exitCode
    }
}
