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

extension PickStation {
    /// ``organisation(requested:preferOpenBatch:)`` for a command: when it cannot tell, the person
    /// is told to pass `--org`.
    func organisation(named requested: String?, preferOpenBatch: Bool) throws -> String {
        do {
            return try organisation(requested: requested, preferOpenBatch: preferOpenBatch)
        } catch let error as OrganisationError {
            throw StationCommandError("\(error): name one with --org ORG")
        }
    }
}

/// A station command's failure, in words.
struct StationCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
