import ConfigFile
import Foundation
import Scanning
import Wire

/// Reading the station config's `organisations`: each one's token (given, in a file, or in the
/// environment) and its scanning switch and symbologies.
extension StationConfiguration {
    /// `organisations`: at least one; each token file read is added to `tokenFiles` (watched for changes).
    static func readOrganisations(
        _ reader: inout ConfigReader, path: String, base: URL, environment: [String: String],
        tokenFiles: inout [String]
    ) throws(ConfigError) -> [String: Organisation] {
        guard var organisationsReader = try reader.object("organisations"), !organisationsReader.keys.isEmpty else {
            throw reader.error("organisations", "is required: at least one organisation with its token")
        }
        var organisations: [String: Organisation] = [:]
        for name in organisationsReader.keys {
            if let problem = FieldRules.organisationProblem(name) { throw reader.error("organisations", problem) }
            guard var organisation = try organisationsReader.object(name) else { continue }
            let given = (
                token: try organisation.string("token"), file: try organisation.string("tokenFile"),
                variable: try organisation.string("tokenEnv")
            )
            let named = ["token", "tokenFile", "tokenEnv"].filter(organisation.contains)
            guard named.count == 1 else {
                throw organisation.error(
                    "token",
                    named.isEmpty
                        ? "is required (or tokenFile, or tokenEnv)" : "give only one of token, tokenFile, tokenEnv")
            }
            let token: String
            if let file = given.file {
                tokenFiles.append(resolve(file, in: base))
                do {
                    token = try NamedFile.readText(resolve(file, in: base), secret: true)
                } catch {
                    throw organisation.error(
                        "tokenFile", error.othersMayChange ? "is refused: \(error)" : "cannot be read: \(error)")
                }
            } else if let variable = given.variable {
                guard let value = environment[variable], !value.isEmpty else {
                    throw organisation.error("tokenEnv", "names the environment variable \(variable), which is not set")
                }
                token = value
            } else {
                guard let value = given.token, !value.isEmpty else { throw organisation.error("token", "is empty") }
                token = value
            }
            if !Self.demoTokens.contains(token) {
                switch named[0] {
                case "token":
                    try requirePrivate(path, "holds organisation \(name)'s token", reader: organisation, key: "token")
                case "tokenFile":
                    try requirePrivate(
                        tokenFiles.last ?? path, "holds organisation \(name)'s token", reader: organisation,
                        key: "tokenFile")
                default: break
                }
            }
            var enabled = false
            var symbologies = Symbology.defaults
            if var scanning = try organisation.object("scanning") {
                enabled = try scanning.bool("enabled", default: false)
                if let list = try scanning.strings("symbologies") {
                    do {
                        symbologies = try Symbology.parseList(list.joined(separator: ","))
                    } catch {
                        throw scanning.error("symbologies", "has an \(error)")
                    }
                }
                try scanning.finish()
            }
            try organisation.finish()
            organisations[name] = Organisation(token: token, scanningEnabled: enabled, symbologies: symbologies)
        }
        try organisationsReader.finish()
        return organisations
    }
}
