import ArgumentParsing
import Station

/// `scanpick select TASK`: make a task the active one.
enum SelectCommand: Command {
    struct Arguments: CommandArguments {
        var station = StationFile()
        var task = Argument<String>("TASK", help: "The task's id.")
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "select", abstract: "Make a task of the open batch the active one (scans are checked against it).")
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let station = try StationFile.open(arguments[\.station.config])
        try station.cache.select(arguments[\.task])
        try BatchCommand.printActive(station)
        return 0
    }
}
