/// A program made of commands, some of them groups of subcommands (`scanpick queue retry 3`): it
/// finds the command, prints its generated help (`--help`, `-h`, or `help` before the command),
/// parses and checks its arguments before running it, and handles usage errors (exit code 2) and
/// failures (exit code 1) the same way at every level.
///
///     let tool = CommandLineTool(name: "scanpick", abstract: "…", commands: [DecodeCommand.self])
///     exit(await tool.main(Array(CommandLine.arguments.dropFirst()), standardError: …, standardOutput: …))
public struct CommandLineTool {
    private let root: CommandNode
    /// What `--version` prints after the tool's name (nil: no such option).
    private let version: String?

    public init(name: String, abstract: String, version: String? = nil, commands: [any Command.Type]) {
        root = CommandNode(tool: name, abstract: abstract, commands: commands)
        self.version = version
    }

    /// Exit code for a command line that does not fit its declaration.
    public static let usageExitCode: Int32 = 2

    /// Runs the command the arguments name; prints help or errors to the right stream.
    public func main(
        _ arguments: [String], standardError: @Sendable (String) -> Void, standardOutput: @Sendable (String) -> Void
    ) async -> Int32 {
        guard !arguments.isEmpty else {
            standardError(helpText + "\n")
            return Self.usageExitCode
        }
        if let version, arguments == ["--version"] {
            standardOutput("\(root.name) \(version)\n")
            return 0
        }
        // `help queue retry` is `queue retry --help`.
        let words = arguments.first == "help" ? Array(arguments.dropFirst()) + ["--help"] : arguments
        return await execute(root, words, standardError: standardError, standardOutput: standardOutput)
    }

    private func execute(
        _ node: CommandNode, _ words: [String], standardError: @Sendable (String) -> Void,
        standardOutput: @Sendable (String) -> Void
    ) async -> Int32 {
        var node = node
        var words = words
        func refuse(_ message: String) -> Int32 {
            standardError("\(node.invocation): \(message)\nRun '\(node.invocation) --help' for usage.\n")
            return Self.usageExitCode
        }
        while node.isGroup {
            let named = node.subcommandWord(in: words)
            if let named, let child = node.child(named: named.word) {
                words.remove(at: named.index)
                node = child
                continue
            }
            let fallback = node.defaultChild.flatMap(node.child(named:))
            if let named, fallback?.specification.arguments.isEmpty ?? true {
                let names = node.children.map(\.name)
                let guess = Suggestion.closest(to: named.word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
                return refuse(
                    "unknown command '\(named.word)'\(guess); the commands are \(listing(names, joinedBy: "and"))")
            }
            if Self.wantsHelp(words) {
                standardOutput(help(of: node) + "\n")
                return 0
            }
            guard let fallback else {
                let names = listing(node.children.map(\.name), joinedBy: "or")
                // An option before any command (`scanpick --bogus`) is named, not taken for nothing.
                if let option = words.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
                    return refuse("unknown option '\(option)': name a command first (one of \(names))")
                }
                // A group named alone (`scanpick token`): what it can do is the answer, so show its usage.
                standardError("\(node.invocation): missing COMMAND: one of \(names)\n\n\(node.helpText)\n")
                return Self.usageExitCode
            }
            node = fallback
        }
        if Self.wantsHelp(words) {
            standardOutput(help(of: node) + "\n")
            return 0
        }
        guard let type = node.type else { return refuse("missing COMMAND") }
        do {
            return try await Self.run(type, words)
        } catch let error as UsageError {
            return refuse(error.message)
        } catch {
            standardError("\(node.invocation): \(error)\n")
            return 1
        }
    }

    private static func run<C: Command>(_ type: C.Type, _ words: [String]) async throws -> Int32 {
        try await C.run(try C.Arguments.parse(words))
    }

    /// Whether `-h` or `--help` comes before any `--`.
    private static func wantsHelp(_ words: [String]) -> Bool {
        words.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
    }

    /// The top-level help: the abstract, one line per command, and `--version` when there is one.
    public var helpText: String {
        root.helpText + (version == nil ? "" : "\nRun '\(root.name) --version' for its version.")
    }

    /// `node`'s help, the tool's own at the top.
    private func help(of node: CommandNode) -> String { node.path == root.path ? helpText : node.helpText }

    /// The help of the command `path` names (`["queue", "retry"]`), or nil when there is none.
    public func helpText(for path: [String]) -> String? {
        var node = root
        for name in path {
            guard let child = node.child(named: name) else { return nil }
            node = child
        }
        return help(of: node)
    }

    /// Every command's path below the tool (`["queue"]`, `["queue", "retry"]`, …), groups included.
    public var commandPaths: [[String]] { root.all.dropFirst().map { Array($0.path.dropFirst()) } }

    /// Mistakes in the commands' declarations (a name declared twice, an option that is a flag in
    /// one command and takes a value in another, …); empty when the tool is sound.
    public var declarationProblems: [String] { root.problems }
}
