import ArgumentParsing
import ConfigFile
import Fleet
import Foundation
import Station
import TerminalText
import Wire

/// `scanpick fleet`: the organisation's stations as the server sees them (their last heartbeats and
/// derived status), for a supervisor at a terminal or a script.
enum FleetCommand: Command {
    struct Arguments: CommandArguments {
        var server = Option<URL?>(
            "server", valueName: "URL", help: "The ScanPick API's base URL (default: the station config's server).",
            parse: { text throws(UsageError) in
                do throws(ServerURL.Problem) {
                    return try ServerURL.parse(text)
                } catch {
                    throw UsageError(error.description)
                }
            })
        var org = Option<String>("org", valueName: "ORG", help: "The organisation whose stations to show.")
        var tokenFile = Option<String?>(
            "token-file", valueName: "FILE", help: "A file holding the organisation's token (else $SCANPICK_TOKEN).")
        var config = Option<String?>(
            "config", short: "c", valueName: "FILE",
            help: "A station config whose token for ORG (and server) to use, when no other token is given.")
        var json = Flag("json", help: "Print GET /api/stations's answer as JSON.")
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "fleet",
            abstract: "Show an organisation's stations: status, last heartbeat, queue, devices.",
            discussion: """
                Reads GET /api/stations with the organisation's token: from --token-file, else the
                SCANPICK_TOKEN environment variable, else the token for ORG in a station config (--config).
                Worst first: stale (no heartbeat for 3 intervals), dead_letters, backlog (oldest unsent action
                older than the server's backlogAlertMinutes), attention, ok. Exits 0 when the stations were
                read (whatever their status), 1 when they could not be.

                --json prints {"org", "serverTime", "stations": [{"station", "status", "problems",
                "lastSeenAt", "clockOffsetSeconds", "heartbeatSeconds", "version", "online", "pending",
                "inFlight", "dead", "oldestPendingAt", "lastSyncAt", "camera", "scanners", "batchId",
                "workerId", "attention": [{"code", "message"}]}]}.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let org = arguments[\.org]
        var server = arguments[\.server]
        let token: String
        if let file = arguments[\.tokenFile] {
            token = try NamedFile.readText(file).trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let variable = ProcessInfo.processInfo.environment["SCANPICK_TOKEN"], !variable.isEmpty {
            token = variable
        } else if let config = arguments[\.config] {
            let station = try StationConfiguration.load(path: config)
            token = try station.organisation(org).token
            server = server ?? station.server
        } else {
            throw StationCommandError(
                "no token for \(org): give --token-file FILE, set SCANPICK_TOKEN, or name a station config with --config"
            )
        }
        guard let server else { throw StationCommandError("--server URL is required (or --config with its server)") }
        let fleet = try await FleetClient(server: server, token: token).stations()
        guard fleet.org == org else {
            throw StationCommandError("that token acts for organisation \(fleet.org), not \(org)")
        }
        if arguments[\.json] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // The server's text, made safe for a terminal as the table's is (JSON's own escapes).
            let json = String(decoding: try encoder.encode(fleet), as: UTF8.self)
            StandardStream.output.write(TerminalText.jsonSafe(json) + "\n")
        } else {
            StandardStream.output.write(FleetTable.render(fleet))
        }
        return 0
    }
}
