import Foundation
import TestSupport
import Testing

/// scripts/lib.sh, the scripts' one build step: a failed build stops the script, loudly.
@Suite struct ScriptLibraryTests {
    /// Runs `build debug scanpick; echo RAN` as a script does, with a `swift` that prints `output`
    /// and exits `status` first on the PATH.
    func runBuild(swiftPrints output: String, exits status: Int32) async throws -> ProcessResult {
        let folder = try TemporaryDirectory()
        let fake = try folder.write("swift", text: "#!/bin/sh\nprintf '\(output)'\nexit \(status)\n")
        #expect(chmod(fake, 0o755) == 0)
        let path = folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try await ProcessRunner.run(
            "/usr/bin/env",
            [
                "PATH=\(path)", "bash", "-c",
                "set -euo pipefail; source scripts/lib.sh; build debug scanpick; echo RAN",
            ],
            in: Repository.root)
    }

    @Test func aFailedBuildStopsTheScriptAndShowsWhy() async throws {
        let result = try await runBuild(swiftPrints: "[1/9] Compiling\\nerror: boom\\n", exits: 1)
        #expect(result.status == 1)
        #expect(!result.standardOutput.contains("RAN"))
        #expect(result.standardError.contains("error: boom"))
        #expect(result.standardError.contains("failed (exit 1)"))
        #expect(!result.standardError.contains("[1/9]"))
    }

    @Test func aGoodBuildShowsWarningsAndGoesOn() async throws {
        let result = try await runBuild(
            swiftPrints: "[1/9] Compiling\\nx.swift:1: warning: unused\\nBuild of product complete!\\n", exits: 0)
        #expect(result.status == 0)
        #expect(result.standardOutput == "RAN\n")
        #expect(result.standardError.contains("warning: unused"))
        #expect(!result.standardError.contains("[1/9]"))
    }

    @Test func noScriptBuildsAnyOtherWay() async throws {
        let scripts = Repository.root + "/scripts"
        for name in try FileManager.default.contentsOfDirectory(atPath: scripts) where name != "lib.sh" {
            let text = try String(contentsOfFile: scripts + "/" + name, encoding: .utf8)
            #expect(!text.contains("swift build"), "scripts/\(name) builds without scripts/lib.sh")
        }
    }
}
