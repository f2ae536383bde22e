import ArgumentParsing
import Foundation
import ScanPickClient
import Station

/// The `--config FILE` option every station command takes (`var station = StationFile()`).
struct StationFile: CommandArguments {
    var config = Option<String>(
        "config", short: "c", valueName: "FILE", help: "Station configuration.", default: ConfigLocation.station,
        shown: ConfigLocation.shown(ConfigLocation.station), parse: { $0 })

    /// The station the config file at `path` describes, its queue database open (created when it
    /// does not exist yet: a tap or a batch opened before the station first ran).
    static func open(_ path: String) throws -> PickStation {
        try PickStation.overHTTP(try StationConfiguration.load(path: path))
    }

    /// ``open(_:)`` for a command that only looks at the queue or acts on what is in it (`queue
    /// show`, `pick-list`, support's retry, clear and park): a database that does not exist
    /// is a mistyped `database` or a station that never ran, which an empty one made here would
    /// hide behind "0 pending".
    static func openExisting(_ path: String) throws -> PickStation {
        let configuration = try StationConfiguration.load(path: path)
        guard FileManager.default.fileExists(atPath: configuration.databasePath) else {
            throw StationCommandError(
                "\(path): \"database\" names \(configuration.databasePath), which does not exist: the station has not run with this config yet, or the path is wrong"
            )
        }
        return try PickStation.overHTTP(configuration)
    }
}

extension PickStation {
    /// The station `configuration` describes, speaking to its server over HTTP (URLSession) with
    /// the config's `server`, tokens, request timeout and answer limit.
    static func overHTTP(_ configuration: StationConfiguration) throws -> PickStation {
        let client = ScanPickHTTPClient(
            server: configuration.server, tokens: configuration.tokens, timeout: configuration.queue.requestTimeout,
            station: configuration.station, maxAnswerBytes: configuration.queue.maxAnswerBytes)
        return try PickStation(configuration: configuration, client: client)
    }

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
