import Foundation
import TestSupport
import Testing

@testable import scanpick

/// The `scanpick` command tree as declared, and its generated help and usage errors as a user meets
/// them (the built binary).
@Suite struct CommandTreeTests {
    @Test func everyCommandIsSoundlyDeclared() {
        #expect(ScanPick.tool.declarationProblems == [])
        let paths = Set(ScanPick.tool.commandPaths)
        for path in [
            ["batch", "open"], ["batch", "refresh"], ["batch", "create"], ["batch", "close"], ["queue", "show"],
            ["queue", "retry"],
            ["queue", "clear"], ["queue", "salvage"], ["queue", "import"], ["token", "new"], ["tap", "pick"],
            ["tap", "qty"], ["decode"], ["station"], ["select"], ["pick-list"],
        ] {
            #expect(paths.contains(path), "\(path)")
        }
    }

    /// The README's command table names every command and subcommand there is (it had drifted:
    /// `queue park` was missing), so a newcomer reading it sees the whole command line.
    @Test func theReadmesCommandTableNamesEveryCommand() throws {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let table = try #require(readme.components(separatedBy: "## Commands").dropFirst().first)
            .components(separatedBy: "### Scripts")[0]
        // The first cell of each row, e.g. `queue show\|retry`: its words, split at spaces and bars.
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { row in
            Set(row.components(separatedBy: " | ")[0].split { " `,|\\".contains($0) }.map(String.init))
        }
        #expect(rows.count > 5)
        for path in ScanPick.tool.commandPaths {
            #expect(
                rows.contains { Set(path).isSubset(of: $0) },
                "README's command table lacks `\(path.joined(separator: " "))`")
        }
    }

    /// The command line stays a thin layer over the libraries: no file of it over 120 lines.
    @Test func everyCommandFileIsThin() throws {
        let folder = Repository.root + "/Sources/scanpick"
        let files = try #require(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10)
        for file in files {
            let lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false
            ).count
            #expect(lines <= 121, "Sources/scanpick/\(file) has \(lines - 1) lines")
        }
    }

    @Test func helpIsGeneratedAtEveryLevel() async throws {
        let tool = ScanPick.tool
        for path in [[]] + tool.commandPaths {
            let help = try await ProcessRunner.scanpick(path + ["--help"])
            #expect(help.status == 0, "\(path)")
            #expect(help.standardOutput == (tool.helpText(for: path) ?? "-") + "\n", "\(path)")
            #expect(help.standardOutput.contains("Usage: \((["scanpick"] + path).joined(separator: " ")) "), "\(path)")
        }
        let retry = try await ProcessRunner.scanpick(["queue", "retry", "--help"])
        for text in ["Usage: scanpick queue retry [options] ID", "--by NAME", "--as-new", "-c, --config FILE"] {
            #expect(retry.standardOutput.contains(text), "\(text)")
        }
        let viaHelp = try await ProcessRunner.scanpick(["help", "queue", "retry"])
        #expect(viaHelp.standardOutput == retry.standardOutput)
    }

    @Test func misspeltCommandsAndOptionsAreUsageErrorsNamingTheValidOnes() async throws {
        let cases: [([String], [String])] = [
            (
                ["queue", "retr", "5"],
                [
                    "scanpick queue: unknown command 'retr' (did you mean 'retry'?)",
                    "show, retry, clear, park, salvage and import", "Run 'scanpick queue --help' for usage.",
                ]
            ),
            (["batch", "shut"], ["unknown command 'shut'; the commands are open, refresh, create and close"]),
            (
                ["tap", "pick", "t1", "--org", "a", "--qyt", "2"],
                ["scanpick tap pick: unknown option '--qyt' (did you mean '--qty'?)"]
            ),
            (
                ["token", "new", "--org", "a", "--colour", "red"],
                ["unknown option '--colour' (this command takes --org, --json and --help)"]
            ),
            (["tap", "pick", "t1", "--org", "a", "--from", "1"], ["unknown option '--from'"]),
            (["queue", "retry"], ["scanpick queue retry: missing ID"]),
            (["queue", "retry", "x1"], ["ID wants a whole number"]),
            (["token"], ["scanpick token: missing COMMAND: one of new", "Usage: scanpick token COMMAND", "new "]),
            (["frobnicate"], ["scanpick: unknown command 'frobnicate'"]),
            (
                ["fleet", "--server", "http://127.0.0.1:70000", "--org", "a"],
                ["scanpick fleet: --server has port 70000, which no server can listen on (1–65535)"]
            ),
            (["tap", "pick", "t1", "--org", "a", "--qty", "1", "--qty", "5"], ["--qty is given twice ('1' and '5')"]),
        ]
        for (arguments, messages) in cases {
            let result = try await ProcessRunner.scanpick(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardOutput.isEmpty, "\(arguments)")
            for message in messages {
                #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            }
        }
    }
}
