/// The declaration of one command: its name, what it does, its options and arguments. Parsing and
/// `--help` are both generated from it, so the two can never disagree.
///
///     let spec = CommandSpec(name: "decode", abstract: "Decode barcodes in still images.",
///                            options: [.flag("json", help: "One JSON object per image.")],
///                            arguments: [ArgumentSpec(name: "PATH", help: "…", repeating: true)])
public struct CommandSpec: Sendable {
    public var name: String
    /// One line: what the command does.
    public var abstract: String
    /// Further paragraphs for `--help` (exit codes, examples).
    public var discussion: String
    public var options: [OptionSpec]
    public var arguments: [ArgumentSpec]

    public init(
        name: String, abstract: String, discussion: String = "", options: [OptionSpec] = [],
        arguments: [ArgumentSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
    }
}

/// A named option: a flag (`--json`) or an option that takes a value (`--jobs N`).
public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    /// The placeholder for the value in help (`N`, `FILE`); nil for a flag.
    public var valueName: String?
    public var help: String
    /// Whether the option may be given several times (all values are kept).
    public var repeating: Bool

    /// An option without a value.
    public static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help, repeating: false)
    }

    /// An option with a value.
    public static func value(
        _ long: String, short: Character? = nil, valueName: String, help: String, repeating: Bool = false
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: valueName, help: help, repeating: repeating)
    }

    var isFlag: Bool { valueName == nil }
}

/// A positional argument.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    /// Whether it takes one or more values (`PATH...`).
    public var repeating: Bool
    /// Whether it may be left out.
    public var optional: Bool

    public init(name: String, help: String, repeating: Bool = false, optional: Bool = false) {
        self.name = name
        self.help = help
        self.repeating = repeating
        self.optional = optional
    }
}
