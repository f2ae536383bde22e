import ArgumentParsing
import Queue
import Station
import TerminalText
import Wire

/// `scanpick batch open|refresh|create|close`: fill the station's pick-list cache from the server, or
/// close a batch on it (a supervisor's).
enum BatchCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "batch",
            abstract:
                "Open a batch on this station (fetches its pick list from the server into the cache), or refresh it.",
            discussion: """
                Opening a batch needs the server the first time (the honest limit: the cache has to be filled
                once). A batch opened before can be reopened offline from the cache. Rows with actions not yet
                sent keep their local counts when the server's view arrives.
                """,
            subcommands: [Open.self, Refresh.self, Create.self, Close.self])
    }

    /// The organisation option `open` and `create` take (default: the only configured one).
    static func org(_ help: String) -> Option<String?> {
        Option<String?>("org", valueName: "ORG", help: help + " (default: the only configured one)")
    }

    /// Prints the active task of the station's open batch, if any.
    static func printActive(_ station: PickStation) throws {
        if let task = try station.cache.activeTask() { StandardStream.output.write(describe(active: task) + "\n") }
    }

    static func describe(active task: Wire.PickTask) -> String { task.activeLine }

    /// What the commands acting on one batch take: `ID [--org ORG]` and the station file.
    struct BatchTarget: CommandArguments {
        var station = StationFile()
        var org = BatchCommand.org("The batch's organisation.")
        var id = Argument<String>("ID", help: "The batch's id.")
    }

    /// `scanpick batch open ID [--org ORG]`.
    enum Open: Command {
        typealias Arguments = BatchTarget

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "open",
                abstract: "Open a batch: fetch its pick list into the cache, or reopen it from the cache when offline.")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let station = try StationFile.open(arguments[\.station.config])
            let id = arguments[\.id]
            let org = try station.organisation(named: arguments[\.org], preferOpenBatch: false)
            switch try await station.openBatch(id, org: org) {
            case .fetched(let batch):
                StandardStream.output.write(
                    "opened batch \(TerminalText.printable(batch.id)) (\(org)): \(batch.tasks.count) tasks\n")
            case .reopenedFromCache:
                StandardStream.output.write(
                    "the server is unreachable: reopened batch \(id) from the station's cache\n")
            }
            try printActive(station)
            return 0
        }
    }

    /// `scanpick batch refresh`.
    enum Refresh: Command {
        struct Arguments: CommandArguments {
            var station = StationFile()
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "refresh",
                abstract:
                    "Fetch the open batch again from the server (rows with unsent actions keep their local counts).")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let station = try StationFile.open(arguments[\.station.config])
            guard try await station.refreshPickList() else { throw CacheError.noOpenBatch }
            StandardStream.output.write("refreshed the open batch from the server\n")
            try printActive(station)
            return 0
        }
    }
}
