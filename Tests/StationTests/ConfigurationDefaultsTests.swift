import Foundation
import Queue
import Scanning
import TestSupport
import Testing

@testable import Station

/// Each default of `config/station.json` is written once, in its options type; the loader and the
/// README's configuration table must agree with it.
@Suite struct ConfigurationDefaultsTests {
    @Test func emptyObjectsLoadTheOptionsTypesOwnDefaults() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write(
            "station.json",
            text: #"""
                {"station": "s", "worker": "w", "server": "http://127.0.0.1:9", "queue": {}, "debounce": {},
                 "camera": {}, "page": {}, "organisations": {"acme": {"token": "demo-acme-token"}}}
                """#)
        let configuration = try StationConfiguration.load(path: path)
        #expect(configuration.queue == QueueOptions())
        #expect(configuration.debounce == Debouncer.Options())
        #expect(configuration.camera == StationConfiguration.CameraSettings())
        #expect(configuration.page == StationConfiguration.PageSettings())
        #expect(configuration.databasePath.hasSuffix("/" + StationConfiguration.defaultDatabasePath))
    }

    @Test func theReadmeTableStatesTheCodesDefaults() throws {
        let table = try Self.readmeTable(containing: "queue.backoffInitialSeconds")
        let queue = QueueOptions()
        let debounce = Debouncer.Options()
        let camera = StationConfiguration.CameraSettings()
        let page = StationConfiguration.PageSettings()
        let expected: [String: String] = [
            "`database`": "`\(StationConfiguration.defaultDatabasePath)`",
            "`queue.backoffInitialSeconds`": Self.number(queue.backoffInitial),
            "`queue.backoffCapSeconds`": Self.number(queue.backoffCap),
            "`queue.drainIntervalSeconds`": Self.number(queue.drainInterval),
            "`queue.requestTimeoutSeconds`": Self.number(queue.requestTimeout),
            "`queue.sentRetentionHours`": Self.number(queue.sentRetention / 3600),
            "`debounce.eanUpcFrames`": "\(debounce.eanUpcFrames)",
            "`debounce.otherFrames`": "\(debounce.otherFrames)",
            "`debounce.holdOffSeconds`": Self.number(debounce.holdOff),
            "`camera.device`": "`\(camera.device)`",
            "`camera.width`, `camera.height`": "\(camera.width), \(camera.height)",
            "`camera.fps`": "\(camera.fps)",
            "`page.listen`": "`\(page.listen)`",
            "`page.allowRemote`": "\(page.allowRemote)",
        ]
        for (key, value) in expected {
            #expect(table[key] == value, "README row \(key)")
        }
    }

    /// The first two columns of the README's table that has a row for `key`.
    static func readmeTable(containing key: String) throws -> [String: String] {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let tables = readme.components(separatedBy: "\n").split { !$0.hasPrefix("|") }
        let table = try #require(tables.first { $0.contains { $0.hasPrefix("| `\(key)`") } })
        var rows: [String: String] = [:]
        for line in table {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 2 { rows[cells[0]] = cells[1] }
        }
        return rows
    }

    /// `2`, `1.5`: a default as the README writes it.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
