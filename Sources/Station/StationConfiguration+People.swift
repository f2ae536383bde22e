import ConfigFile
import Digest
import Foundation
import Wire

/// Reading who picks and who supports: the station config's `workers` and `support`.
extension StationConfiguration {
    /// `workers`: at most ``maxWorkers``, each id listed once.
    static func readWorkers(_ reader: inout ConfigReader) throws(ConfigError) -> [Worker] {
        var workers: [Worker] = []
        for var options in try reader.objects("workers") ?? [] {
            guard workers.count < Self.maxWorkers else {
                throw reader.error("workers", "may list at most \(Self.maxWorkers) workers")
            }
            let id = try options.requiredString("id")
            let name = try options.requiredString("name")
            do {
                try FieldRules.text(id, field: "id")
                try FieldRules.text(name, field: "name", maxLength: 64)
            } catch {
                throw options.error(error.field, "\(error.problem) (a worker's id is sent as every action's workerId)")
            }
            guard !workers.contains(where: { $0.id == id }) else {
                throw options.error("id", "'\(id.prefix(40))' is listed twice")
            }
            try options.finish()
            workers.append(Worker(id: id, name: name))
        }
        return workers
    }

    /// `support`: its badge pattern (never the same as `workerBadgePattern`) and PIN hashes.
    static func readSupport(_ reader: inout ConfigReader, workerBadgePattern: LabelPattern?) throws(ConfigError)
        -> SupportSettings
    {
        var support = SupportSettings()
        if var options = try reader.object("support") {
            if let text = try options.string("badgePattern") {
                do {
                    support.badgePattern = try LabelPattern(text)
                } catch {
                    throw options.error("badgePattern", error.problem)
                }
            }
            let hashes = try options.strings("pinSha256") ?? []
            guard hashes.count <= Self.maxSupportPins else {
                throw options.error("pinSha256", "may list at most \(Self.maxSupportPins) hashes")
            }
            for hash in hashes where !SHA256.isHex(hash) {
                throw options.error(
                    "pinSha256",
                    "must hold 64-character lower-case hex SHA-256 hashes, not '\(hash.prefix(12))…' (make one with `printf %s PIN | sha256sum`)"
                )
            }
            support.pinSha256 = hashes
            try options.finish()
        }
        if let support = support.badgePattern, let worker = workerBadgePattern, support.source == worker.source {
            throw reader.error(
                "support.badgePattern",
                "is the same as workerBadgePattern: a support badge must be told from a picker's")
        }
        return support
    }
}
