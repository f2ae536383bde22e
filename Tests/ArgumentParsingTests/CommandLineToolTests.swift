import Synchronization
import Testing

@testable import ArgumentParsing

/// A small tool with a group (`queue`, whose default is `show`) and a plain command (`echo`).
enum Echo: Command {
    struct Arguments: CommandArguments {
        var word = Argument<String>("WORD", help: "What to say.")
        var times = Option<Int>("times", valueName: "N", help: "How often.", default: 1, in: 1...3)
    }
    static var configuration: CommandConfiguration { .init(name: "echo", abstract: "Echo a word.") }
    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 { Int32(arguments[\.times]) + 6 }
}

enum QueueGroup: Command {
    static var configuration: CommandConfiguration {
        .init(
            name: "queue", abstract: "The queue.", discussion: "Dead letters wait for support.",
            subcommands: [Show.self, Retry.self], defaultSubcommand: Show.self)
    }

    enum Show: Command {
        struct Arguments: CommandArguments {
            var config = Option<String>("config", valueName: "FILE", help: "Config.", default: "c.json")
            var json = Flag("json", help: "JSON.")
        }
        static var configuration: CommandConfiguration { .init(name: "show", abstract: "Show the queue.") }
        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 { arguments[\.json] ? 11 : 10 }
    }

    enum Retry: Command {
        struct Arguments: CommandArguments {
            var config = Option<String>("config", valueName: "FILE", help: "Config.", default: "c.json")
            var id = Argument<Int>("ID", help: "The action.", in: 1...Int.max)
        }
        static var configuration: CommandConfiguration { .init(name: "retry", abstract: "Retry a dead letter.") }
        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 { Int32(arguments[\.id]) }
    }
}

enum BatchGroup: Command {
    static var configuration: CommandConfiguration {
        .init(name: "batch", abstract: "Batches.", subcommands: [Echo.self])
    }
}

/// What one run of the tool printed.
struct Run {
    var status: Int32
    var output = ""
    var errors = ""

    init(_ arguments: [String]) async {
        let tool = CommandLineTool(
            name: "t", abstract: "A tool.", version: "1.2.3", commands: [Echo.self, QueueGroup.self, BatchGroup.self])
        let printed = Mutex((output: "", errors: ""))
        status = await tool.main(
            arguments, standardError: { text in printed.withLock { $0.errors += text } },
            standardOutput: { text in printed.withLock { $0.output += text } })
        (output, errors) = printed.withLock { $0 }
    }
}

@Suite struct CommandLineToolTests {
    @Test func runsCommandsAndSubcommands() async {
        #expect(await Run(["echo", "hi"]).status == 7)
        #expect(await Run(["echo", "hi", "--times", "3"]).status == 9)
        #expect(await Run(["queue"]).status == 10)
        #expect(await Run(["queue", "--json"]).status == 11)
        #expect(await Run(["queue", "show", "--json"]).status == 11)
        #expect(await Run(["queue", "retry", "5"]).status == 5)
        // Options may come before the subcommand's name, values included.
        #expect(await Run(["queue", "--config", "x.json", "retry", "4"]).status == 4)
        #expect(await Run(["batch", "echo", "yo"]).status == 7)
    }

    @Test func usageErrorsExitTwoAtEveryLevel() async {
        let missing = await Run(["echo"])
        #expect(missing.status == 2)
        #expect(missing.errors == "t echo: missing WORD\nRun 't echo --help' for usage.\n")
        let unknown = await Run(["nope"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("t: unknown command 'nope'; the commands are echo, queue and batch"))
        let misspelt = await Run(["queue", "retr", "5"])
        #expect(misspelt.status == 2)
        #expect(
            misspelt.errors.hasPrefix(
                "t queue: unknown command 'retr' (did you mean 'retry'?); the commands are show and retry\n"))
        let badFlag = await Run(["queue", "retry", "5", "--jsn"])
        #expect(badFlag.status == 2)
        #expect(
            badFlag.errors.hasPrefix("t queue retry: unknown option '--jsn' (this command takes --config and --help)"))
        #expect(badFlag.errors.contains("Run 't queue retry --help' for usage."))
        let badValue = await Run(["queue", "retry", "x"])
        #expect(badValue.status == 2)
        #expect(badValue.errors.contains("ID wants a whole number"))
        let noCommand = await Run(["batch"])
        #expect(noCommand.status == 2)
        #expect(noCommand.errors.hasPrefix("t batch: missing COMMAND: one of echo"))
        #expect(noCommand.errors.contains("Usage: t batch COMMAND"))  // the group's usage, not just a pointer to it
        let empty = await Run([])
        #expect(empty.status == 2)
        #expect(empty.errors.contains("Usage: t COMMAND [options]"))
        // An option before any command is named, not taken for a missing command.
        let early = await Run(["--bogus"])
        #expect(early.status == 2)
        #expect(
            early.errors.hasPrefix("t: unknown option '--bogus': name a command first (one of echo, queue or batch)"))
        #expect(await Run(["batch", "-x"]).errors.hasPrefix("t batch: unknown option '-x': name a command first"))
    }

    @Test func versionIsPrintedAndNamedInTheHelp() async {
        let version = await Run(["--version"])
        #expect(version.status == 0)
        #expect(version.output == "t 1.2.3\n")
        #expect(await Run(["--help"]).output.contains("Run 't --version' for its version."))
        #expect(await Run(["echo", "--version"]).status == 2)  // a command's own options do not have it
    }

    @Test func helpIsGeneratedAtEveryLevel() async {
        let top = await Run(["--help"])
        #expect(top.status == 0)
        #expect(top.output.contains("Usage: t COMMAND [options]"))
        #expect(top.output.contains("  queue  The queue."))
        let group = await Run(["queue", "--help"])
        #expect(group.status == 0)
        #expect(group.output.contains("Usage: t queue [COMMAND] [options]"))
        #expect(group.output.contains("show   Show the queue. (the default)"))
        #expect(group.output.contains("Dead letters wait for support."))
        #expect(group.output.contains("Run 't queue COMMAND --help' for a command's options."))
        for words in [["queue", "retry", "--help"], ["help", "queue", "retry"], ["queue", "retry", "-h", "x"]] {
            let leaf = await Run(words)
            #expect(leaf.status == 0, "\(words)")
            #expect(leaf.output.contains("Usage: t queue retry [options] ID"), "\(words)")
            #expect(leaf.output.contains("--config FILE"), "\(words)")
            #expect(leaf.output.contains("Config. Default: c.json."), "\(words)")
        }
        let echo = await Run(["echo", "--help"])
        #expect(echo.output.contains("--times N"))
        #expect(echo.output.contains("How often. Default: 1."))
    }

    @Test func aSoundToolHasNoDeclarationProblems() {
        let tool = CommandLineTool(name: "t", abstract: "", commands: [Echo.self, QueueGroup.self, BatchGroup.self])
        #expect(tool.declarationProblems.isEmpty)
        #expect(tool.commandPaths.contains(["queue", "retry"]))
        #expect(tool.helpText(for: ["batch", "echo"])?.contains("Usage: t batch echo") == true)
        enum Clash: Command {
            struct Arguments: CommandArguments { var config = Flag("config", help: "") }
            static var configuration: CommandConfiguration { .init(name: "clash", abstract: "") }
        }
        enum Group: Command {
            static var configuration: CommandConfiguration {
                .init(name: "g", abstract: "", subcommands: [QueueGroup.Retry.self, Clash.self])
            }
        }
        let broken = CommandLineTool(name: "t", abstract: "", commands: [Group.self])
        #expect(broken.declarationProblems.contains { $0.contains("--config is a flag in one command") })
    }
}
