import ArgumentParsing
import Station
import Wire

extension BatchCommand {
    /// `scanpick batch create [--org ORG] --filter KEY=VALUE...`.
    enum Create: Command {
        struct Arguments: CommandArguments {
            var station = StationFile()
            var org = BatchCommand.org("The organisation the batch is made for.")
            var filters = Option<[Filter]>(
                "filter", valueName: "KEY=VALUE",
                help:
                    "Which orders: \(Filter.keys) (orderIds comma-separated); every filter given must match, none matches every order. Each key once, but orderIds may come more than once.",
                repeating: Filter.init)
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "create",
                abstract: "Create a batch on the server from filters, then open it here (needs the server).",
                discussion: "The server alone can make a batch: it resolves the filters against its orders table.")
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            var filters = BatchFilters()
            for filter in arguments[\.filters] { try filter.apply(to: &filters) }
            let station = try StationFile.open(arguments[\.station.config])
            let org = try station.organisation(named: arguments[\.org], preferOpenBatch: false)
            let batch = try await station.createBatch(filters, org: org)
            StandardStream.output.write("created and opened batch \(batch.id) (\(org)): \(batch.tasks.count) tasks\n")
            try printActive(station)
            return 0
        }
    }

    /// One `--filter KEY=VALUE`, checked while parsing.
    struct Filter: Sendable {
        /// The filters the server's `POST /api/batches` takes.
        enum Key: String, CaseIterable, Sendable {
            case carrier, zone, shipByOnOrBefore, orderIds
        }
        static let keys = listing(Key.allCases.map(\.rawValue))

        let key: Key
        let value: String

        init(_ text: String) throws(UsageError) {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw UsageError("wants KEY=VALUE, not '\(text)'") }
            guard let key = Key(rawValue: parts[0]) else {
                throw UsageError(": unknown filter '\(parts[0])': use \(Self.keys)")
            }
            (self.key, value) = (key, parts[1])
        }

        /// Sets its filter; order ids add up, and any other key given twice is refused: the filters
        /// must all match, so a second carrier would not widen the batch, only replace the first.
        func apply(to filters: inout BatchFilters) throws(UsageError) {
            func set(_ field: inout String?) throws(UsageError) {
                if let earlier = field {
                    throw UsageError(
                        "--filter \(key.rawValue) is given twice ('\(earlier.prefix(80))' and '\(value.prefix(80))'): a batch takes one \(key.rawValue); make one batch for each"
                    )
                }
                field = value
            }
            switch key {
            case .carrier: try set(&filters.carrier)
            case .zone: try set(&filters.zone)
            case .shipByOnOrBefore: try set(&filters.shipByOnOrBefore)
            case .orderIds: filters.orderIds = (filters.orderIds ?? []) + value.split(separator: ",").map(String.init)
            }
        }
    }
}

/// `a, b or c`.
private func listing(_ words: [String]) -> String {
    words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
}
