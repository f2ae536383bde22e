import Testing

@testable import ArgumentParsing

/// A declaration like `scanpick decode`'s, to parse against.
struct DecodeLike: CommandArguments {
    var json = Flag("json", help: "JSON output.")
    var quiet = Flag("quiet", short: "q", help: "Quiet.")
    var jobs = Option<Int?>("jobs", short: "j", valueName: "N", help: "Workers.", in: 1...8)
    var tag = Option<[String]>("tag", valueName: "T", help: "A tag.", repeating: { $0 })
    var paths = Argument<[String]>("PATH", help: "Files.")
}

@Suite struct ParsingTests {
    @Test func parsesFlagsValuesAndPositionals() throws {
        let parsed = try DecodeLike.parse(["--json", "a.png", "-j", "3", "--tag=x", "--tag", "y", "b.png"])
        #expect(parsed[\.json])
        #expect(!parsed[\.quiet])
        #expect(parsed[\.jobs] == 3)
        #expect(parsed[\.tag] == ["x", "y"])
        #expect(parsed[\.paths] == ["a.png", "b.png"])
    }

    @Test func groupsShortOptionsAndTakesAttachedValues() throws {
        let parsed = try DecodeLike.parse(["-qj4", "x"])
        #expect(parsed[\.quiet])
        #expect(parsed[\.jobs] == 4)
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try DecodeLike.parse(["--", "--json", "-q"])
        #expect(parsed[\.paths] == ["--json", "-q"])
        #expect(!parsed[\.json])
    }

    @Test func refusesWhatTheDeclarationDoesNotAllow() {
        #expect(throws: UsageError("--jobs needs a value (N)")) { try DecodeLike.parse(["a", "--jobs"]) }
        #expect(throws: UsageError("--json takes no value")) { try DecodeLike.parse(["--json=1", "a"]) }
        #expect(throws: UsageError("missing PATH")) { try DecodeLike.parse(["--json"]) }
        // Values are checked while parsing, before the command reads them.
        #expect(throws: UsageError("--jobs wants a whole number from 1 to 8, not 'many'")) {
            try DecodeLike.parse(["-j", "many", "a"])
        }
    }

    /// `--qty 1 --qty 5` at a pick station is a slip: neither value is guessed at.
    @Test func anOptionGivenTwiceIsRefusedUnlessItRepeats() throws {
        #expect(throws: UsageError("--jobs is given twice ('1' and '5'): give it once")) {
            try DecodeLike.parse(["--jobs", "1", "-j5", "a"])
        }
        #expect(try DecodeLike.parse(["--tag", "x", "--tag", "x", "a"])[\.tag] == ["x", "x"])
        #expect(try DecodeLike.parse(["--json", "--json", "a"])[\.json])  // a flag twice says the same
    }

    @Test func aMisspeltOptionNamesTheOneMeantOrTheOnesThereAre() {
        #expect(throws: UsageError("unknown option '--jo' (did you mean '--jobs'?)")) {
            try DecodeLike.parse(["--jo", "a"])
        }
        #expect(throws: UsageError("unknown option '--jsn' (did you mean '--json'?)")) {
            try DecodeLike.parse(["--jsn", "a"])
        }
        let known = "(this command takes --json, --quiet, --jobs, --tag and --help)"
        #expect(throws: UsageError("unknown option '--colour' \(known)")) { try DecodeLike.parse(["--colour", "a"]) }
        #expect(throws: UsageError("unknown option '-x' \(known)")) { try DecodeLike.parse(["-x", "a"]) }
    }

    @Test func requiredAndDefaultedOptionsAndPositionalCounts() throws {
        struct Tap: CommandArguments {
            var org = Option<String>("org", valueName: "ORG", help: "The organisation.")
            var qty = Option<Int>("qty", valueName: "N", help: "Units.", default: 1, in: 1...100)
            var task = Argument<String>("TASK", help: "The task.")
            var note = Argument<String?>("NOTE", help: "A note.")
        }
        let parsed = try Tap.parse(["t1", "--org", "acme"])
        #expect(parsed[\.org] == "acme")
        #expect(parsed[\.qty] == 1)
        #expect(!parsed.wasGiven(\.qty))
        #expect(parsed[\.task] == "t1")
        #expect(parsed[\.note] == nil)
        #expect(try Tap.parse(["t1", "hello", "--org", "a", "--qty", "3"])[\.note] == "hello")
        #expect(throws: UsageError("--org ORG is required")) { try Tap.parse(["t1"]) }
        #expect(throws: UsageError("missing TASK")) { try Tap.parse(["--org", "a"]) }
        #expect(throws: UsageError("unexpected argument 'c'")) { try Tap.parse(["a", "b", "c", "--org", "a"]) }
        #expect(throws: UsageError("--qty wants a whole number from 1 to 100, not '0'")) {
            try Tap.parse(["t1", "--org", "a", "--qty", "0"])
        }
    }

    @Test func contradictoryOptionsAreRefused() throws {
        struct Station: CommandArguments {
            var frames = Option<String?>("frames", valueName: "PATH", help: "Recorded frames.")
            var fps = Option<Int>("fps", valueName: "N", help: "Frame rate.", default: 30, in: 1...1000)
            var wedge = Flag("wedge", help: "A scanner.")
            var device = Option<String?>("device", valueName: "DEV", help: "A camera.")
            static let rules: [ArgumentRule<Self>] = [
                .exclusive(\.frames, \.wedge, \.device, because: "the station reads one source"),
                .requires(\.fps, \.frames),
            ]
        }
        #expect(throws: UsageError("--frames and --wedge cannot be used together: the station reads one source")) {
            try Station.parse(["--frames", "f", "--wedge"])
        }
        #expect(throws: UsageError("--fps needs --frames")) { try Station.parse(["--fps", "5"]) }
        #expect(try Station.parse(["--frames", "f", "--fps", "5"])[\.fps] == 5)
        #expect(try Station.parse(["--wedge"])[\.fps] == 30)
    }

    @Test func nestedGroupsAddTheirDeclarations() throws {
        struct Shared: CommandArguments {
            var config = Option<String>("config", short: "c", valueName: "FILE", help: "Config.", default: "c.json")
        }
        struct Status: CommandArguments {
            var shared = Shared()
            var json = Flag("json", help: "JSON.")
        }
        #expect(try Status.parse([])[\.shared.config] == "c.json")
        #expect(try Status.parse(["-c", "x.json", "--json"])[\.shared.config] == "x.json")
        #expect(Status.specification.problems.isEmpty)
    }

    @Test func declarationMistakesAreFound() {
        struct Twice: CommandArguments {
            var a = Flag("json", help: "")
            var b = Flag("json", short: "h", help: "")
            var many = Argument<[String]>("PATH", help: "")
            var after = Argument<String>("NAME", help: "")
        }
        let problems = Twice.specification.problems
        #expect(problems.contains("--json is declared twice"))
        #expect(problems.contains("-h is declared twice (or is -h)"))
        #expect(problems.contains("PATH takes several values but is not last"))
    }
}
