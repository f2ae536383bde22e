/// An option with a value (`--jobs N`): a stored property of a ``CommandArguments`` declares it,
/// with its type, its default and how its text is checked; the command reads the checked value.
/// Every value is converted while the command line is parsed, so a bad one is a usage error before
/// the command does anything. `Value` says what absence means: `T?` nil, `T` with a default that
/// default, `T` without one "required", `[T]` repeatable.
///
///     var jobs = Option<Int?>("jobs", short: "j", valueName: "N", help: "Workers.", in: 1...256)
///     let jobs = arguments[\.jobs]  // Int?
public struct Option<Value: Sendable>: Sendable, Declared {
    let spec: OptionSpec

    var declaration: Declaration { .option(spec) }

    /// An option that may be left out (nil); `parse` turns its text into a value or says, after
    /// the option's name, what is wrong with it ("wants a whole number…").
    public init<T: Sendable>(
        _ long: String, short: Character? = nil, valueName: String, help: String,
        parse: @escaping @Sendable (String) throws(UsageError) -> T
    ) where Value == T? {
        spec = OptionSpec(
            long: long, short: short, valueName: valueName, help: help, repeating: false,
            convert: { texts throws(UsageError) in try converting(texts, subject: "--\(long)", parse).last })
    }

    /// An option that must be given. (Disfavoured so that an optional `Value` takes the init above,
    /// which leaves it nil when absent, rather than this one with a closure promoted to optional.)
    @_disfavoredOverload
    public init(
        _ long: String, short: Character? = nil, valueName: String, help: String,
        parse: @escaping @Sendable (String) throws(UsageError) -> Value
    ) {
        spec = OptionSpec(
            long: long, short: short, valueName: valueName, help: help + " Required.", repeating: false,
            convert: { texts throws(UsageError) in
                guard let value = try converting(texts, subject: "--\(long)", parse).last else {
                    throw UsageError("--\(long) \(valueName) is required")
                }
                return value
            })
    }

    /// An option with a default, which its help shows (as `shown`, or as the value prints).
    public init(
        _ long: String, short: Character? = nil, valueName: String, help: String, default value: Value,
        shown: String? = nil, parse: @escaping @Sendable (String) throws(UsageError) -> Value
    ) {
        spec = OptionSpec(
            long: long, short: short, valueName: valueName,
            help: help + " Default: \(shown ?? String(describing: value)).", repeating: false,
            convert: { texts throws(UsageError) in try converting(texts, subject: "--\(long)", parse).last ?? value })
    }

    /// An option that may be given any number of times; every value is kept, in order.
    public init<T: Sendable>(
        _ long: String, short: Character? = nil, valueName: String, help: String,
        repeating parse: @escaping @Sendable (String) throws(UsageError) -> T
    ) where Value == [T] {
        spec = OptionSpec(
            long: long, short: short, valueName: valueName, help: help + " May be repeated.", repeating: true,
            convert: { texts throws(UsageError) in try converting(texts, subject: "--\(long)", parse) })
    }
}

extension Option where Value == String? {
    /// A text option that may be left out.
    public init(_ long: String, short: Character? = nil, valueName: String, help: String) {
        self.init(long, short: short, valueName: valueName, help: help, parse: { $0 })
    }
}

extension Option where Value == String {
    /// A text option that must be given.
    public init(_ long: String, short: Character? = nil, valueName: String, help: String) {
        self.init(long, short: short, valueName: valueName, help: help, parse: { $0 })
    }

    /// A text option with a default.
    public init(_ long: String, short: Character? = nil, valueName: String, help: String, default value: String) {
        self.init(long, short: short, valueName: valueName, help: help, default: value, parse: { $0 })
    }
}

extension Option where Value == Int? {
    /// A whole-number option within `range`, which may be left out.
    public init(_ long: String, short: Character? = nil, valueName: String, help: String, in range: ClosedRange<Int>) {
        self.init(
            long, short: short, valueName: valueName, help: help,
            parse: { text throws(UsageError) in
                try integer(text, in: range)
            })
    }
}

extension Option where Value == Int {
    /// A whole-number option within `range` that must be given.
    public init(_ long: String, short: Character? = nil, valueName: String, help: String, in range: ClosedRange<Int>) {
        self.init(
            long, short: short, valueName: valueName, help: help,
            parse: { text throws(UsageError) in
                try integer(text, in: range)
            })
    }

    /// A whole-number option within `range`, with a default.
    public init(
        _ long: String, short: Character? = nil, valueName: String, help: String, default value: Int,
        in range: ClosedRange<Int>
    ) {
        self.init(
            long, short: short, valueName: valueName, help: help, default: value,
            parse: { text throws(UsageError) in try integer(text, in: range) })
    }
}
