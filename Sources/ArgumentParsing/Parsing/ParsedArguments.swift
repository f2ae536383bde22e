/// A command line parsed by a ``CommandArguments`` declaration: every value converted and checked,
/// read through key paths to the declaration (so only declared options can be read).
///
///     let jobs = arguments[\.jobs]     // Option<Int?>  → Int?
///     if arguments[\.json] { … }       // Flag          → Bool
public struct ParsedArguments<Arguments: CommandArguments>: Sendable {
    /// Each declaration's value (its default when not given), by key.
    private let values: [String: any Sendable]
    /// The keys of the options given on the command line.
    private let given: Set<String>

    init(parsing arguments: [String], by specification: ArgumentsSpecification) throws(UsageError) {
        let scanned = try CommandLineScanner(specification.options).scan(arguments)
        var values: [String: any Sendable] = [:]
        for option in specification.options {
            values[option.key] = try option.convert(scanned.options[option.key] ?? [])
        }
        var positionals = scanned.positionals[...]
        for (index, argument) in specification.arguments.enumerated() {
            // Later arguments' minimums are kept for them; the rest goes to this one, up to its maximum.
            let reserved = specification.arguments.dropFirst(index + 1).map(\.minimum).reduce(0, +)
            let available = max(0, positionals.count - reserved)
            let taken = min(argument.maximum ?? available, available)
            guard taken >= argument.minimum else { throw UsageError("missing \(argument.name)") }
            values[argument.key] = try argument.convert(Array(positionals.prefix(taken)))
            positionals = positionals.dropFirst(taken)
        }
        if let extra = positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let given = Set(scanned.options.keys)
        for rule in specification.rules {
            if let violation = rule.violation(given: given) { throw UsageError(violation) }
        }
        self.values = values
        self.given = given
    }

    /// Whether the flag was given.
    public subscript(_ path: KeyPath<Arguments, Flag>) -> Bool {
        value(Arguments()[keyPath: path].spec.key)
    }

    /// The option's value: what was given, else its default (or nil, for an optional one).
    public subscript<Value>(_ path: KeyPath<Arguments, Option<Value>>) -> Value {
        value(Arguments()[keyPath: path].spec.key)
    }

    /// The positional argument's value or values.
    public subscript<Value>(_ path: KeyPath<Arguments, Argument<Value>>) -> Value {
        value(Arguments()[keyPath: path].spec.key)
    }

    /// The values of a nested group of declarations, for code written for that group alone.
    public subscript<Group: CommandArguments>(_ path: KeyPath<Arguments, Group>) -> ParsedArguments<Group> {
        ParsedArguments<Group>(values: values, given: given)
    }

    private init(values: [String: any Sendable], given: Set<String>) {
        self.values = values
        self.given = given
    }

    /// Whether the option at `path` was typed (rather than left to its default).
    public func wasGiven<Value>(_ path: KeyPath<Arguments, Option<Value>>) -> Bool {
        given.contains(Arguments()[keyPath: path].spec.key)
    }

    private func value<Value>(_ key: String) -> Value {
        guard let value = values[key] as? Value else {
            // Only a declaration can be read, and parsing gave each declaration its value.
            preconditionFailure("\(key) is not a stored property of \(Arguments.self), so it was never parsed")
        }
        return value
    }
}

/// A command line that does not fit its declaration; the message says what to change.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
