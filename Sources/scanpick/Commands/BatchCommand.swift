import ArgumentParsing
import Foundation
import Queue
import Station
import Wire

/// `scanpick batch open ID --org ORG`: fill the station's pick-list cache from the server.
enum BatchCommand: Command {
    static let spec = CommandSpec(
        name: "batch",
        abstract: "Open a batch on this station (fetches its pick list from the server into the cache), or refresh it.",
        discussion: """
            scanpick batch open ID --org ORG
            scanpick batch refresh             the open batch again from the server (rows with unsent
                                               actions keep their local counts)
            scanpick batch create --org ORG --filter KEY=VALUE...
                                               a new batch on the server (carrier, zone, shipByOnOrBefore,
                                               orderIds=A,B), then opened here; needs the server

            Opening a batch needs the server the first time (the honest limit: the cache has to be filled
            once). A batch opened before can be reopened offline from the cache. Rows with actions not yet
            sent keep their local counts when the server's view arrives.
            """,
        options: [
            StationOptions.config, .value("org", valueName: "ORG", help: "The batch's organisation. Required."),
            .value(
                "filter", valueName: "KEY=VALUE",
                help: "A filter for 'create': carrier, zone, shipByOnOrBefore or orderIds (comma-separated).",
                repeating: true),
        ],
        arguments: [
            ArgumentSpec(name: "ACTION", help: "open, refresh or create"),
            ArgumentSpec(name: "ID", help: "The batch id (for open).", optional: true),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let station: PickStation
        switch arguments.positionals[0] {
        case "open": station = try await open(arguments)
        case "refresh": station = try await refresh(arguments)
        case "create": station = try await create(arguments)
        default: throw UsageError("ACTION must be 'open', 'refresh' or 'create'")
        }
        if let task = try station.cache.activeTask() { StandardStream.output.write(describe(active: task) + "\n") }
        return 0
    }

    /// Asks the server for the open batch again.
    private static func refresh(_ arguments: ParsedArguments) async throws -> PickStation {
        let station = try StationOptions.load(arguments)
        guard try await station.refreshPickList() else { throw CacheError.noOpenBatch }
        StandardStream.output.write("refreshed the open batch from the server\n")
        return station
    }

    /// Fetches a batch into the cache, or reopens it from the cache when the server is unreachable.
    private static func open(_ arguments: ParsedArguments) async throws -> PickStation {
        guard let org = arguments.value("org") else { throw UsageError("--org ORG is required") }
        guard arguments.positionals.count == 2 else { throw UsageError("missing ID: scanpick batch open ID --org ORG") }
        let id = arguments.positionals[1]
        let station = try StationOptions.load(arguments)
        _ = try station.configuration.organisation(org)
        do {
            let asked = Date()
            let batch = try await station.transport.fetchBatch(id, org: org)
            try station.cache.store(batch, org: org, fetchedAt: asked)
            StandardStream.output.write("opened batch \(batch.id) (\(org)): \(batch.tasks.count) tasks\n")
        } catch let error as FetchError {
            guard case .unreachable = error else { throw error }
            guard try station.cache.reopen(id, org: org) else {
                throw StationCommandError(
                    "\(error). Batch \(id) was never opened on this station, and opening it the first time needs the server."
                )
            }
            StandardStream.output.write("the server is unreachable: reopened batch \(id) from the station's cache\n")
        }
        return station
    }

    /// Creates a batch on the server (it alone can resolve filters against the orders) and opens it.
    private static func create(_ arguments: ParsedArguments) async throws -> PickStation {
        guard let org = arguments.value("org") else { throw UsageError("--org ORG is required") }
        var filters = BatchFilters()
        for filter in arguments.values["filter"] ?? [] {
            let parts = filter.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw UsageError("--filter wants KEY=VALUE, not '\(filter)'") }
            switch parts[0] {
            case "carrier": filters.carrier = parts[1]
            case "zone": filters.zone = parts[1]
            case "shipByOnOrBefore": filters.shipByOnOrBefore = parts[1]
            case "orderIds": filters.orderIds = parts[1].split(separator: ",").map(String.init)
            default: throw UsageError("unknown filter '\(parts[0])': use carrier, zone, shipByOnOrBefore or orderIds")
            }
        }
        let station = try StationOptions.load(arguments)
        _ = try station.configuration.organisation(org)
        let asked = Date()
        let batch: Wire.Batch
        do {
            batch = try await station.transport.createBatch(filters, org: org)
        } catch {
            if case .unreachable = error {
                throw StationCommandError(
                    "\(error). Creating a batch needs the server: it resolves the filters against the orders table.")
            }
            throw error
        }
        try station.cache.store(batch, org: org, fetchedAt: asked)
        StandardStream.output.write("created and opened batch \(batch.id) (\(org)): \(batch.tasks.count) tasks\n")
        return station
    }

    static func describe(active task: Wire.PickTask) -> String {
        "active: \(task.location)  \(task.sku)  \(task.barcode)  \(task.qtyPicked)/\(task.qtyRequired)  (task \(task.id))"
    }
}

/// A station command's failure, in words.
struct StationCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `scanpick select TASK`: make a task the active one.
enum SelectCommand: Command {
    static let spec = CommandSpec(
        name: "select",
        abstract: "Make a task of the open batch the active one (scans are checked against it).",
        options: [StationOptions.config],
        arguments: [ArgumentSpec(name: "TASK", help: "The task's id.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let station = try StationOptions.load(arguments)
        try station.cache.select(arguments.positionals[0])
        if let task = try station.cache.activeTask() {
            StandardStream.output.write(BatchCommand.describe(active: task) + "\n")
        }
        return 0
    }
}
