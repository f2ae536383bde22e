import Foundation
import TestSupport
import Testing

/// Where commands read their configuration when `--config` is left out: `config/` run from a
/// checkout, `/etc/scanpick` once installed (the binary as the package lays it out), and `--help`
/// saying which is in force.
@Suite struct ConfigLocationTests {
    @Test func aCheckoutBuildReadsConfigAndSaysWhereTheInstalledOneWouldRead() async throws {
        let serve = try await ProcessRunner.scanpick(["serve", "--help"])
        #expect(
            Self.words(serve.standardOutput).contains(
                "Default: config/server.json (a checkout build; installed, /etc/scanpick/server.json)"))
        let status = try await ProcessRunner.scanpick(["status", "--help"])
        #expect(
            Self.words(status.standardOutput).contains(
                "Default: config/station.json (a checkout build; installed, /etc/scanpick/station.json)"))
    }

    /// The same binary in the package's layout (`…/usr/lib/scanpick/scanpick`) reads `/etc/scanpick`.
    @Test func theInstalledBinaryReadsEtcScanpick() async throws {
        let folder = try TemporaryDirectory()
        let installed = folder.file("usr/lib/scanpick/scanpick")
        try FileManager.default.createDirectory(
            atPath: folder.file("usr/lib/scanpick"), withIntermediateDirectories: true)
        do {
            try FileManager.default.linkItem(atPath: ProcessRunner.scanpick, toPath: installed)
        } catch {
            try FileManager.default.copyItem(atPath: ProcessRunner.scanpick, toPath: installed)
        }
        let serve = try await ProcessRunner.run(installed, ["serve", "--help"], in: folder.path)
        #expect(
            Self.words(serve.standardOutput).contains("Default: /etc/scanpick/server.json (installed)."),
            "\(serve.standardOutput)")
        let station = try await ProcessRunner.run(installed, ["station", "--help"], in: folder.path)
        #expect(Self.words(station.standardOutput).contains("Default: /etc/scanpick/station.json (installed)."))
        // Run from a folder with a config/ of its own, it still reads /etc/scanpick's.
        _ = try folder.write("config/station.json", text: "{}")
        let queue = try await ProcessRunner.run(installed, ["queue", "show"], in: folder.path)
        #expect(queue.status != 0)
        #expect(queue.standardError.contains("/etc/scanpick/station.json"), "\(queue.standardError)")
    }

    /// Help text with its line wrapping undone.
    static func words(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
