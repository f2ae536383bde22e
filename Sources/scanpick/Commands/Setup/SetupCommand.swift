import ArgumentParsing
import ConfigFile
import Foundation

/// `scanpick setup station|server`: one machine's role, from a few flags to a checked config under
/// `/etc/scanpick` and its one unit enabled and started (installing the package enables nothing).
enum SetupCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "setup", abstract: "Make this machine a pick station or the central server (run as root).",
            subcommands: [SetupStation.self, SetupServer.self])
    }

    /// The options both roles take, besides their own.
    struct Common: CommandArguments {
        var etc = Option<String>(
            "etc", valueName: "DIR", help: "The configuration folder to write in.",
            default: ConfigLocation.packagedFolder)
        var force = Flag("force", help: "Replace a configuration (or token file) that exists already.")
        var shipped = Option<String>(
            "shipped", valueName: "DIR",
            help: "Where the package keeps its configs as shipped: one left as shipped is replaced without --force.",
            default: ConfigInstaller.shippedFolder)
        var noStart = Flag("no-start", help: "Write and check the configuration; do not enable or start the unit.")
    }

    /// Says what was written and, unless `noStart`, enables and starts `unit`.
    static func finish(_ path: String, summary: String, unit: String, noStart: Bool) throws {
        StandardStream.output.write("wrote \(path), \(NamedFile.ownership(path)): \(summary)\n")
        if noStart {
            StandardStream.output.write("not started (--no-start); to start it: systemctl enable --now \(unit)\n")
        } else {
            try ConfigInstaller.enableAndStart(unit)
            StandardStream.output.write("\(unit) enabled and started (systemctl status \(unit))\n")
        }
    }

    /// A config's JSON as written: keys sorted, indented, ending in a newline.
    static func json(_ object: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
