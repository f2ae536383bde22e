import Testing

@testable import ArgumentParsing

@Suite struct CommandSpecTests {
    let spec = CommandSpec(
        name: "decode", abstract: "Decode things.", discussion: "Exit codes: 0 fine.",
        options: [
            .flag("json", help: "JSON output."),
            .flag("quiet", short: "q", help: "Quiet."),
            .value("jobs", short: "j", valueName: "N", help: "Workers."),
            .value("tag", valueName: "T", help: "A tag.", repeating: true),
        ],
        arguments: [ArgumentSpec(name: "PATH", help: "Files.", repeating: true)])

    @Test func parsesFlagsValuesAndPositionals() throws {
        let parsed = try spec.parse(["--json", "a.png", "-j", "3", "--tag=x", "--tag", "y", "b.png"])
        #expect(parsed.has("json"))
        #expect(!parsed.has("quiet"))
        #expect(try parsed.integer("jobs", in: 1...8) == 3)
        #expect(parsed.values["tag"] == ["x", "y"])
        #expect(parsed.positionals == ["a.png", "b.png"])
    }

    @Test func groupsShortOptionsAndTakesAttachedValues() throws {
        let parsed = try spec.parse(["-qj4", "x"])
        #expect(parsed.has("quiet"))
        #expect(parsed.value("jobs") == "4")
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try spec.parse(["--", "--json", "-q"])
        #expect(parsed.positionals == ["--json", "-q"])
        #expect(!parsed.has("json"))
    }

    @Test func refusesWhatTheDeclarationDoesNotAllow() {
        #expect(throws: UsageError("unknown option '--jsn'")) { try spec.parse(["--jsn", "a"]) }
        #expect(throws: UsageError("--jobs needs a value (N)")) { try spec.parse(["a", "--jobs"]) }
        #expect(throws: UsageError("--json takes no value")) { try spec.parse(["--json=1", "a"]) }
        #expect(throws: UsageError("missing PATH")) { try spec.parse(["--json"]) }
        #expect(throws: UsageError("--jobs wants a whole number from 1 to 8, not 'many'")) {
            try spec.parse(["-j", "many", "a"]).integer("jobs", in: 1...8)
        }
    }

    @Test func suggestsTheOptionMeant() {
        #expect(throws: UsageError("unknown option '--jo' (did you mean '--jobs'?)")) { try spec.parse(["--jo", "a"]) }
    }

    @Test func helpComesFromTheDeclaration() throws {
        let help = spec.helpText(program: "scanpick")
        #expect(help.contains("Usage: scanpick decode [options] PATH..."))
        #expect(help.contains("-j, --jobs N"))
        #expect(help.contains("--json"))
        #expect(help.contains("Exit codes: 0 fine."))
        #expect(try spec.parse(["--help"]).wantsHelp)
    }

    @Test func toolReportsUsageErrorsWithExitCodeTwo() async {
        enum Echo: Command {
            static let spec = CommandSpec(
                name: "echo", abstract: "Echo.", arguments: [ArgumentSpec(name: "WORD", help: "")])
            static func run(_ arguments: ParsedArguments) async throws -> Int32 { 7 }
        }
        let tool = CommandLineTool(name: "t", abstract: "A tool.", commands: [Echo.self])
        var errors = ""
        var output = ""
        #expect(
            await tool.main(["echo", "hi"], standardError: { errors += $0 }, standardOutput: { output += $0 }) == 7)
        #expect(await tool.main(["echo"], standardError: { errors += $0 }, standardOutput: { output += $0 }) == 2)
        #expect(errors.contains("t echo: missing WORD"))
        #expect(await tool.main(["nope"], standardError: { errors += $0 }, standardOutput: { output += $0 }) == 2)
        #expect(errors.contains("unknown command 'nope'"))
        #expect(await tool.main(["--help"], standardError: { errors += $0 }, standardOutput: { output += $0 }) == 0)
        #expect(output.contains("echo  "))
    }
}
