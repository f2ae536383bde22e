/// A command of the tool: its name and help (``configuration``), what it takes (``Arguments``) and
/// what it does with them. A command with ``CommandConfiguration/subcommands`` is a group
/// (`scanpick queue retry`): it only dispatches, and takes no arguments of its own.
///
///     enum Select: Command {
///         struct Arguments: CommandArguments { var task = Argument<String>("TASK", help: "The task.") }
///         static var configuration: CommandConfiguration { .init(name: "select", abstract: "Select a task.") }
///         static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 { … }
///     }
public protocol Command {
    associatedtype Arguments: CommandArguments = NoArguments
    static var configuration: CommandConfiguration { get }
    /// Runs the command and returns the process exit code. Thrown ``UsageError``s exit 2, any
    /// other error 1, each with its message on standard error.
    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32
}

extension Command {
    /// A group's: it is never run (the tool dispatches to a subcommand, or refuses the command line).
    public static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        throw UsageError("missing COMMAND")
    }
}

/// A command's name, help text and subcommands.
public struct CommandConfiguration {
    public var name: String
    /// One line: what the command does.
    public var abstract: String
    /// Further paragraphs for `--help` (exit codes, output formats, examples).
    public var discussion: String
    /// The commands of a group, in the order its help lists them.
    public var subcommands: [any Command.Type]
    /// The subcommand a group runs when none is named (`scanpick queue` shows the queue).
    public var defaultSubcommand: (any Command.Type)?

    public init(
        name: String, abstract: String, discussion: String = "", subcommands: [any Command.Type] = [],
        defaultSubcommand: (any Command.Type)? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
    }
}
