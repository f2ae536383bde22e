/// What a command takes, declared once as the stored properties of a struct: each ``Flag``,
/// ``Option`` and ``Argument`` property is one option or positional argument (in the order written),
/// and a property that is itself a `CommandArguments` adds its declarations (options several commands
/// share). Parsing, `--help` and usage errors all come from this declaration, and the command reads
/// the parsed values through key paths to it, so a misspelt name does not compile.
///
///     struct Arguments: CommandArguments {
///         var json = Flag("json", help: "Print JSON.")
///         var task = Argument<String>("TASK", help: "The task's id.")
///     }
public protocol CommandArguments: Sendable {
    init()
    /// How options depend on each other (used together, or not at all); checked while parsing.
    static var rules: [ArgumentRule<Self>] { get }
}

extension CommandArguments {
    public static var rules: [ArgumentRule<Self>] { [] }

    /// Parses a command line (without the program and command names) against this declaration:
    /// `--name value`, `--name=value`, `-n value`, grouped short flags (`-qv`), and `--` to end
    /// options. Every value is converted and every rule checked before this returns.
    public static func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments<Self> {
        try ParsedArguments(parsing: arguments, by: specification)
    }

    /// The declarations, found by reflection on an instance, nested groups flattened.
    static var specification: ArgumentsSpecification {
        var declarations: [Declaration] = []
        var rules: [ErasedRule] = []
        func collect(_ group: any CommandArguments) {
            rules += type(of: group).erasedRules
            for child in Mirror(reflecting: group).children {
                if let declared = child.value as? any Declared {
                    declarations.append(declared.declaration)
                } else if let nested = child.value as? any CommandArguments {
                    collect(nested)
                }
            }
        }
        collect(Self())
        return ArgumentsSpecification(declarations: declarations, rules: rules)
    }

    private static var erasedRules: [ErasedRule] { rules.map(\.erased) }

    /// The key (`--long`, or the argument's name) of the declaration at `path`.
    static func key(_ path: PartialKeyPath<Self>) -> String {
        guard let declared = Self()[keyPath: path] as? any Declared else {
            preconditionFailure("\(Self.self): a rule names a property that is not a Flag, Option or Argument")
        }
        return declared.declaration.key
    }
}

/// A command that takes nothing (a group of subcommands).
public struct NoArguments: CommandArguments {
    public init() {}
}

/// A dependency between options, checked while parsing.
///
///     static let rules: [ArgumentRule<Self>] = [.exclusive(\.frames, \.wedge), .requires(\.fps, \.frames)]
public struct ArgumentRule<Arguments: CommandArguments>: Sendable {
    let erased: ErasedRule

    /// At most one of `members` may be given (`reason` says why, in the error and the help).
    public static func exclusive(_ members: PartialKeyPath<Arguments>..., because reason: String? = nil) -> Self {
        Self(erased: .exclusive(members.map(Arguments.key), reason: reason))
    }

    /// `member` may only be given together with `other`.
    public static func requires(
        _ member: PartialKeyPath<Arguments>, _ other: PartialKeyPath<Arguments>, because reason: String? = nil
    ) -> Self {
        Self(erased: .requires(Arguments.key(member), Arguments.key(other), reason: reason))
    }
}

/// A rule with its members' keys.
enum ErasedRule: Sendable {
    case exclusive([String], reason: String?)
    case requires(String, String, reason: String?)

    /// The rule in words, for help and errors.
    var sentence: String {
        switch self {
        case .exclusive(let keys, let reason):
            "Give at most one of \(listing(keys, joinedBy: "or"))" + (reason.map { ": \($0)" } ?? "") + "."
        case .requires(let member, let other, let reason):
            "\(member) needs \(other)" + (reason.map { ": \($0)" } ?? "") + "."
        }
    }

    /// What was given against the rule, or nil.
    func violation(given: Set<String>) -> String? {
        switch self {
        case .exclusive(let keys, let reason):
            let clashing = keys.filter(given.contains)
            guard clashing.count > 1 else { return nil }
            return "\(listing(clashing, joinedBy: "and")) cannot be used together" + (reason.map { ": \($0)" } ?? "")
        case .requires(let member, let other, let reason):
            guard given.contains(member), !given.contains(other) else { return nil }
            return "\(member) needs \(other)" + (reason.map { ": \($0)" } ?? "")
        }
    }
}

/// `a`, `a or b`, `a, b or c`.
func listing(_ items: [String], joinedBy word: String) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(word) " + items[items.count - 1]
}

/// Everything one command declares, type-erased.
struct ArgumentsSpecification: Sendable {
    var declarations: [Declaration]
    var rules: [ErasedRule]

    var options: [OptionSpec] {
        declarations.compactMap { if case .option(let option) = $0 { option } else { nil } }
    }
    var arguments: [ArgumentSpec] {
        declarations.compactMap { if case .argument(let argument) = $0 { argument } else { nil } }
    }

    /// Mistakes in the declaration itself (a name used twice, a positional that cannot be reached).
    var problems: [String] {
        var problems: [String] = []
        var keys = Set<String>()
        var shorts = Set<Character>(["h"])
        for declaration in declarations where !keys.insert(declaration.key).inserted {
            problems.append("\(declaration.key) is declared twice")
        }
        if keys.contains("--help") { problems.append("--help is declared, but every command has it") }
        for option in options {
            if let short = option.short, !shorts.insert(short).inserted {
                problems.append("-\(short) is declared twice (or is -h)")
            }
        }
        for (index, argument) in arguments.enumerated() where index < arguments.count - 1 {
            if argument.maximum == nil { problems.append("\(argument.name) takes several values but is not last") }
            if argument.minimum == 0, arguments[index + 1].minimum > 0 {
                problems.append("\(argument.name) may be left out but \(arguments[index + 1].name) after it may not")
            }
        }
        return problems
    }
}
