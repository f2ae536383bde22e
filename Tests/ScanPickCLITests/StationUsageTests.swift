import Foundation
import TestSupport
import Testing

/// `scanpick station` refuses a command line it cannot run before it does anything: exit 2 and the
/// usage error alone, nothing on standard output (no active task, no page address) and nothing
/// created (its database), however runnable the rest of its config is.
@Suite struct StationUsageTests {
    @Test(arguments: [
        (
            ["--frames", "frames", "--wedge"],
            "--frames and --wedge cannot be used together: the station reads one frame source"
        ),
        (["--frames", "frames", "--fps", "0"], "--fps wants a whole number from 1 to 1000, not '0'"),
    ])
    func aUsageErrorComesBeforeAnythingRuns(arguments: [String], problem: String) async throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("frames/00001.png", bytes: try Repository.sampleBytes("clean/upca.png"))
        let config = try folder.writePrivate(
            "station.json",
            bytes: Array(
                #"""
                {"station": "usage-1", "worker": "w", "server": "http://127.0.0.1:9", "database": "var/station.sqlite",
                 "page": {"listen": "127.0.0.1:0"}, "camera": {"enabled": false},
                 "organisations": {"acme": {"token": "demo-acme-token", "scanning": {"enabled": true}}}}
                """#.utf8))
        let before = try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()

        let result = try await ProcessRunner.scanpick(
            ["station"] + arguments + ["--config", config], in: folder.path)
        #expect(result.status == 2)
        #expect(
            result.standardError == "scanpick station: \(problem)\nRun 'scanpick station --help' for usage.\n",
            "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted() == before)
    }
}
