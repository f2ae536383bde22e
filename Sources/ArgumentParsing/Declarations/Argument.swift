/// A positional argument (`TASK`, `PATH...`): a stored property of a ``CommandArguments`` declares
/// it, in the order it is typed. `Value` says how many it takes: `T` one, `T?` one or none, `[T]` any
/// number (at least one unless declared otherwise). Its values are checked while parsing.
///
///     var task = Argument<String>("TASK", help: "The pick task's id.")
///     let task = arguments[\.task]  // String
public struct Argument<Value: Sendable>: Sendable, Declared {
    let spec: ArgumentSpec

    var declaration: Declaration { .argument(spec) }

    /// One value, which must be given.
    public init(_ name: String, help: String, parse: @escaping @Sendable (String) throws(UsageError) -> Value) {
        spec = ArgumentSpec(
            name: name, help: help, minimum: 1, maximum: 1,
            convert: { texts throws(UsageError) in
                guard let value = try converting(texts, subject: name, parse).first else {
                    throw UsageError("missing \(name)")
                }
                return value
            })
    }

    /// One value that may be left out (only the last arguments may be).
    public init<T: Sendable>(
        _ name: String, help: String, parse: @escaping @Sendable (String) throws(UsageError) -> T
    ) where Value == T? {
        spec = ArgumentSpec(
            name: name, help: help, minimum: 0, maximum: 1,
            convert: { texts throws(UsageError) in try converting(texts, subject: name, parse).first })
    }

    /// Any number of values (at least one unless `optional`); only the last argument may take several.
    public init<T: Sendable>(
        _ name: String, help: String, optional: Bool = false,
        parse: @escaping @Sendable (String) throws(UsageError) -> T
    ) where Value == [T] {
        spec = ArgumentSpec(
            name: name, help: help, minimum: optional ? 0 : 1, maximum: nil,
            convert: { texts throws(UsageError) in try converting(texts, subject: name, parse) })
    }
}

extension Argument where Value == String {
    /// One text, which must be given.
    public init(_ name: String, help: String) { self.init(name, help: help, parse: { $0 }) }
}

extension Argument where Value == String? {
    /// One text that may be left out.
    public init(_ name: String, help: String) { self.init(name, help: help, parse: { $0 }) }
}

extension Argument where Value == [String] {
    /// Any number of texts (at least one unless `optional`).
    public init(_ name: String, help: String, optional: Bool = false) {
        self.init(name, help: help, optional: optional, parse: { $0 })
    }
}

extension Argument where Value == Int {
    /// One whole number within `range`, which must be given.
    public init(_ name: String, help: String, in range: ClosedRange<Int>) {
        self.init(name, help: help, parse: { text throws(UsageError) in try integer(text, in: range) })
    }
}
