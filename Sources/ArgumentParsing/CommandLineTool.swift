/// A command that the tool can run: its declaration and what it does with the parsed arguments.
public protocol Command {
    /// The declaration help and parsing come from.
    static var spec: CommandSpec { get }
    /// Runs the command and returns the process exit code.
    static func run(_ arguments: ParsedArguments) async throws -> Int32
}

/// A program made of subcommands (`scanpick decode …`), with generated top-level help and
/// consistent handling of usage errors (exit code 2) and failures (exit code 1).
///
///     let tool = CommandLineTool(name: "scanpick", abstract: "…", commands: [DecodeCommand.self])
///     exit(await tool.main(Array(CommandLine.arguments.dropFirst())))
public struct CommandLineTool {
    public var name: String
    public var abstract: String
    public var commands: [any Command.Type]

    public init(name: String, abstract: String, commands: [any Command.Type]) {
        self.name = name
        self.abstract = abstract
        self.commands = commands
    }

    /// Exit code for a command line that does not fit its declaration.
    public static let usageExitCode: Int32 = 2

    /// Runs the command named by the first argument; prints help or errors to the right stream.
    public func main(_ arguments: [String], standardError: (String) -> Void, standardOutput: (String) -> Void) async
        -> Int32
    {
        guard let commandName = arguments.first, commandName != "--help", commandName != "-h", commandName != "help"
        else {
            if arguments.first == "help", arguments.count > 1, let command = find(arguments[1]) {
                standardOutput(command.spec.helpText(program: name) + "\n")
                return 0
            }
            let text = helpText
            if arguments.isEmpty {
                standardError(text + "\n")
                return Self.usageExitCode
            }
            standardOutput(text + "\n")
            return 0
        }
        guard let command = find(commandName) else {
            standardError("\(name): unknown command '\(commandName)'\n\n\(helpText)\n")
            return Self.usageExitCode
        }
        do {
            let parsed = try command.spec.parse(Array(arguments.dropFirst()))
            if parsed.wantsHelp {
                standardOutput(command.spec.helpText(program: name) + "\n")
                return 0
            }
            return try await command.run(parsed)
        } catch let error as UsageError {
            standardError("\(name) \(commandName): \(error.message)\nRun '\(name) \(commandName) --help' for usage.\n")
            return Self.usageExitCode
        } catch {
            standardError("\(name) \(commandName): \(error)\n")
            return 1
        }
    }

    /// The top-level help: the abstract and one line per command.
    public var helpText: String {
        var lines = [abstract, "", "Usage: \(name) COMMAND [options]", "", "Commands:"]
        lines += CommandSpec.table(commands.map { ($0.spec.name, $0.spec.abstract) })
        lines += ["", "Run '\(name) COMMAND --help' for a command's options."]
        return lines.joined(separator: "\n")
    }

    private func find(_ name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }
}
