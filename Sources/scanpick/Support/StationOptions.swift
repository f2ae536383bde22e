import ArgumentParsing
import Station

/// The `--config FILE` option every station command takes, and loading what it names.
enum StationOptions {
    static let config = OptionSpec.value(
        "config", short: "c", valueName: "FILE", help: "Station configuration (default: config/station.json).")

    static func load(_ arguments: ParsedArguments) throws -> StationQueue {
        let configuration = try StationConfiguration.load(path: arguments.value("config") ?? "config/station.json")
        return try StationQueue(configuration: configuration)
    }
}
