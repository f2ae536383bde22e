import Foundation
import HTTPServing
import TestSupport
import Testing

@testable import Station

/// The reload table (``StationConfiguration/reloadTable``) is the one place that says whether each
/// station config key applies at once or needs a restart: the README's configuration reference
/// names exactly its keys, and docs/architecture.md shows each one's way as the table has it.
@Suite struct ReloadTableTests {
    @Test func theReadmesReferenceNamesEveryKeyOfTheTableAndNoOther() throws {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let section = try #require(readme.range(of: "### `config/station.json`"))
        let rows = Self.tableRows(readme[section.upperBound...])
        // "`camera.width`, `camera.height`": one row, two keys.
        let documented = Set(rows.flatMap { Self.backticked($0[0]) })
        let table = Set(StationConfiguration.reloadTable.map(\.key))
        #expect(documented.subtracting(table).isEmpty, "in the README, not the table: \(documented.subtracting(table))")
        #expect(table.subtracting(documented).isEmpty, "in the table, not the README: \(table.subtracting(documented))")
        #expect(StationConfiguration.reloadTable.count == table.count, "a key is in the table twice")
    }

    @Test func theArchitecturePageShowsEachKeysWayAsTheTableHasIt() throws {
        let page = try String(contentsOfFile: Repository.root + "/docs/architecture.md", encoding: .utf8)
        let section = try #require(page.range(of: "## Reload"))
        let shown = Self.tableRows(page[section.upperBound...]).map { row in
            (Self.backticked(row[0]).first ?? row[0], row.count > 1 ? row[1] : "")
        }
        let table = StationConfiguration.reloadTable.map { ($0.key, $0.reload.rawValue) }
        #expect(shown.map(\.0) == table.map(\.0))
        #expect(shown.map(\.1) == table.map(\.1))
    }

    /// A re-read config keeps every restart key's running value and names the ones that changed,
    /// and takes every live key's new value.
    @Test func aReloadKeepsRestartKeysAndTakesLiveOnes() throws {
        let running = try Self.smallestConfig()
        var new = running
        new.station = "s2"
        new.heartbeatSeconds = running.heartbeatSeconds + 1
        new.camera.fps = running.camera.fps + 5
        new.camera.scanLineSpacing = 1
        new.worker = "w2"
        new.debounce.holdOff = running.debounce.holdOff + 1
        new.organisations["a"]?.scanningEnabled.toggle()
        let (merged, restart) = StationConfiguration.reloaded(new, over: running)
        #expect(restart == ["station", "heartbeatSeconds", "camera.fps"])
        #expect(merged.station == "s1" && merged.heartbeatSeconds == running.heartbeatSeconds)
        #expect(merged.camera.fps == running.camera.fps && merged.camera.device == running.camera.device)
        #expect(merged.camera.scanLineSpacing == 1)
        #expect(merged.worker == "w2")
        #expect(merged.debounce == new.debounce)
        #expect(merged.organisations == new.organisations)
        #expect(StationConfiguration.reloaded(running, over: running).needsRestart.isEmpty)
    }

    /// A page whose address changes keeps all its running settings until the restart: the live
    /// page keys changed in the same edit are named beside `page.listen`, never dropped silently.
    @Test func aNewPageAddressNamesThePageKeysItHoldsBack() throws {
        let running = try Self.smallestConfig()
        var new = running
        new.page.listen = ListenAddress(host: "127.0.0.1", port: running.page.listen.port &+ 1)
        new.page.secret = "a-new-secret-0123456789"
        new.page.allowedHosts = ["station-1.local"]
        let (merged, restart) = StationConfiguration.reloaded(new, over: running)
        #expect(restart == ["page.listen", "page.allowedHosts", "page.tokenFile"])
        #expect(merged.page == running.page)
        // Alone, a live page key applies at once and needs no restart.
        var secretOnly = running
        secretOnly.page.secret = "a-new-secret-0123456789"
        let live = StationConfiguration.reloaded(secretOnly, over: running)
        #expect(live.needsRestart.isEmpty)
        #expect(live.configuration.page.secret == "a-new-secret-0123456789")
    }

    /// A station config with only what is required, as loaded from its file.
    static func smallestConfig() throws -> StationConfiguration {
        let folder = try TemporaryDirectory("scanpick-reload")
        let path = try folder.writePrivate(
            "station.json",
            bytes: Array(
                #"{"station": "s1", "worker": "w1", "server": "http://127.0.0.1:9", "organisations": {"a": {"token": "t"}}}"#
                    .utf8))
        return try StationConfiguration.load(path: path)
    }

    /// The cells of a Markdown table's body rows: the first table after the heading.
    static func tableRows(_ text: Substring) -> [[String]] {
        var rows: [[String]] = []
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                if inTable { break }
                continue
            }
            inTable = true
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.first != "key", !(cells.first?.hasPrefix("---") ?? true) else { continue }
            rows.append(cells)
        }
        return rows
    }

    static func backticked(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }
}
