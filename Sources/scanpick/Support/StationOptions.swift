import ArgumentParsing
import Station

/// The `--config FILE` option every station command takes, and loading what it names.
enum StationOptions {
    static let config = OptionSpec.value(
        "config", short: "c", valueName: "FILE", help: "Station configuration (default: config/station.json).")

    /// The config file the arguments name.
    static func path(_ arguments: ParsedArguments) -> String { arguments.value("config") ?? "config/station.json" }

    static func load(_ arguments: ParsedArguments) throws -> PickStation {
        try PickStation(configuration: try StationConfiguration.load(path: path(arguments)))
    }
}
