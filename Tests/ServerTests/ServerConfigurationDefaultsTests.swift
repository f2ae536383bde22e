import Foundation
import HTTPServing
import Server
import TestSupport
import Testing

/// Each default of `config/server.json` is written once (``ServerConfiguration/Defaults``): the
/// initialiser, the loader, the README's table and docs/api.md's `http` table must agree with it.
@Suite struct ServerConfigurationDefaultsTests {
    @Test func aConfigThatSaysNothingLoadsTheInitialisersDefaults() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("server.json", text: #"{"organisations": {}, "http": {}, "metrics": {}}"#)
        let loaded = try ServerConfiguration.load(path: path)
        let defaults = ServerConfiguration(
            listen: ServerConfiguration.Defaults.listen,
            database: ServerDatabase(
                ServerConfiguration.Defaults.database, relativeTo: URL(fileURLWithPath: folder.path)),
            organisations: [:])
        #expect(loaded == defaults)
    }

    @Test func theReadmeTableStatesTheCodesDefaults() throws {
        typealias Defaults = ServerConfiguration.Defaults
        let table = try DocumentTable.rows(containing: "idempotencyRetentionDays")
        let metrics = ServerConfiguration.MetricsSettings()
        let expected: [String: String] = [
            "`listen`": "`\(Defaults.listen)`",
            "`database`": "`\(Defaults.database)`",
            "`databasePoolSize`": "\(Defaults.databasePoolSize)",
            "`idempotencyRetentionDays`": "\(Defaults.idempotencyRetentionDays)",
            "`idempotencyMarginHours`": "\(Defaults.idempotencyMarginHours) (at most the window less 1 h)",
            "`allowPlainHTTP`": "\(Defaults.allowPlainHTTP)",
            "`backlogAlertMinutes`": DocumentTable.number(Defaults.backlogAlertMinutes),
            "`maxStationsPerOrganisation`": "\(Defaults.maxStationsPerOrganisation)",
            "`batches.autoCloseMinutes`": DocumentTable.number(Defaults.batchAutoCloseMinutes),
            "`drainSeconds`": DocumentTable.number(Defaults.drainSeconds),
            "`metrics.tokenSha256`": "\(metrics.tokenSha256)",
            "`metrics.allowUnauthenticated`": "\(metrics.allowUnauthenticated)",
        ]
        for (key, value) in expected {
            #expect(table[key] == value, "README row \(key)")
        }
        // The README's example config states the same retention.
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        #expect(readme.contains(#""idempotencyRetentionDays": \#(Defaults.idempotencyRetentionDays)"#))
    }

    /// The `http` row of the README sends readers to docs/api.md, whose table lists every limit.
    @Test func theHTTPLimitsTableStatesEveryLimitsDefault() throws {
        let table = try DocumentTable.rows(in: "docs/api.md", containing: "perAddressConnectionLimit")
        let limits = HTTPServerLimits()
        for setting in HTTPServerLimits.settings {
            #expect(
                table["`\(setting.name)`"] == "\(limits[keyPath: setting.keyPath])", "docs/api.md row \(setting.name)")
        }
        #expect(table.count - 2 == HTTPServerLimits.settings.count)  // the header and its rule besides
    }
}
