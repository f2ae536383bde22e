import ArgumentParsing
import Station

/// The `--config FILE` option every station command takes (`var station = StationFile()`).
struct StationFile: CommandArguments {
    var config = Option<String>(
        "config", short: "c", valueName: "FILE", help: "Station configuration.", default: "config/station.json")

    /// The station the config file at `path` describes, its queue database open.
    static func open(_ path: String) throws -> PickStation {
        try PickStation(configuration: try StationConfiguration.load(path: path))
    }
}

/// A station command's failure, in words.
struct StationCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
