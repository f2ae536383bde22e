import ArgumentParsing
import ConfigFile
import Foundation
import Server
import Station

/// `scanpick config check --config FILE`: validates a server's or a station's configuration with
/// the checks and messages of their start-up, so an operator can check an edit before a restart.
enum ConfigCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "config", abstract: "Check a configuration file; trust the station's private CA.",
            subcommands: [Check.self, TrustCA.self], defaultSubcommand: Check.self)
    }

    /// Which program a configuration file is for.
    enum Kind: String, CaseIterable, Sendable {
        case server
        case station
    }
}
