import ArgumentParsing
import ConfigFile
import Foundation
import Server
import Station
import Wire

extension ConfigCommand {
    /// `scanpick config check`.
    enum Check: Command {
        struct Arguments: CommandArguments {
            var config = Option<String>(
                "config", short: "c", valueName: "FILE", help: "The configuration file to check.",
                parse: { text throws(UsageError) in
                    guard !text.isEmpty else { throw UsageError("FILE is required") }
                    return text
                })
            var kind = Option<Kind?>(
                "kind", valueName: "server|station",
                help:
                    "Which program the file is for (default: a file with a \"station\" or \"worker\" key is a station's).",
                parse: { text throws(UsageError) in
                    guard let kind = Kind(rawValue: text) else { throw UsageError(": use server or station") }
                    return kind
                })
            var asUser = Option<String?>(
                "as-user", valueName: "USER",
                help:
                    "Check again as USER, whom the service runs as (needs root; default as root: \(ServiceUser.name), if that user exists)."
            )
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "check",
                abstract: "Validate a configuration as start-up does; exit 0 when it is valid, 1 when not.",
                discussion: """
                    Reads the file and every file it names (token files, the page's secret, TLS certificate
                    and key) with the same checks and messages as `scanpick serve` and `scanpick station`
                    at start-up, and fails where start-up would: a database folder the service cannot write
                    (installed, also one outside the unit's ReadWritePaths=), a listen address in use (run by
                    hand, only a warning: the running service holds it until a restart), a batch open in
                    the station's queue for an organisation the file lacks. It holds no port longer than a
                    moment and reads the station's queue without changing it. Prints what the file
                    describes, and warnings for what is legal but probably not meant. Run as root, it checks
                    again as the services' user, who must be able to read (and write) what it names.
                    """)
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let path = arguments[\.config]
            let kind = try arguments[\.kind] ?? guessKind(path)
            let (summary, warnings): (String, [String])
            do {
                (summary, warnings) = try kind == .station ? checkStation(path) : checkServer(path)
            } catch {
                // A station's file checked as a server's fails on its first station key: say why.
                guard let looks = try? guessKind(path), looks != kind else { throw error }
                throw StationCommandError(
                    "\(error) (this file looks like a \(looks.rawValue) configuration: use --kind \(looks.rawValue), or leave --kind out)"
                )
            }
            if let user = arguments[\.asUser] ?? ServiceUser.defaultForCheck() {
                try ServiceUser.check(path, kind: kind.rawValue, as: user)
            }
            for warning in warnings { StandardStream.error.write("warning: \(warning)\n") }
            StandardStream.output.write("\(path): a valid \(kind.rawValue) configuration (\(summary))\n")
            return 0
        }

        /// A station's file names its station or worker; anything else is taken for a server's.
        static func guessKind(_ path: String) throws -> Kind {
            let reader = try ConfigReader(contentsOf: path)
            return reader.contains("station") || reader.contains("worker") ? .station : .server
        }

        static func checkServer(_ path: String) throws -> (String, [String]) {
            let configuration = try ServerFile.load(path, database: nil)
            let tls = try ServerFile.startupCheck(configuration)
            let organisations = configuration.organisations.keys.sorted()
            let summary =
                "listens on \(configuration.listen) \(tls == nil ? "in plain HTTP" : "with TLS"), "
                + "database \(configuration.database), "
                + "\(plural(organisations.count, "organisation"))\(organisations.isEmpty ? "" : ": " + organisations.joined(separator: ", "))"
            let found = StartupProblems.server(configuration)
            guard found.problems.isEmpty else {
                throw ServeFailure(description: found.problems.joined(separator: "; "))
            }
            return (summary, ServerFile.warnings(configuration) + found.warnings)
        }

        static func checkStation(_ path: String) throws -> (String, [String]) {
            let configuration = try StationConfiguration.load(path: path)
            let found = StartupProblems.station(configuration, path: path)
            guard found.problems.isEmpty else { throw StationCommandError(found.problems.joined(separator: "; ")) }
            let scanning = configuration.organisations.filter(\.value.scanningEnabled).keys.sorted()
            var warnings = found.warnings
            if scanning.isEmpty {
                warnings.append(
                    "no organisation has scanning.enabled: the camera and scanners are never opened (taps still work)")
            }
            let summary =
                "station \(configuration.station), worker \(configuration.worker), server \(ServerURL.redacted(configuration.server)), "
                + "\(plural(configuration.organisations.count, "organisation")), "
                + "camera \(configuration.camera.enabled ? configuration.camera.device : "off"), "
                + plural(configuration.scanners.count, "handheld scanner")
            return (summary, warnings)
        }

        static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
    }
}
