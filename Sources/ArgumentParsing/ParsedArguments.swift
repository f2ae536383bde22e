/// What the user typed, sorted by the declaration: flags given, option values, positional values.
public struct ParsedArguments: Sendable, Equatable {
    public var flags: Set<String> = []
    public var values: [String: [String]] = [:]
    public var positionals: [String] = []
    /// Whether `-h` or `--help` was given.
    public var wantsHelp = false

    public init() {}

    /// Whether the flag `long` was given.
    public func has(_ long: String) -> Bool { flags.contains(long) || values[long] != nil }

    /// The last value given for `long`, or nil.
    public func value(_ long: String) -> String? { values[long]?.last }

    /// The value of `long` as an integer within `range`, or nil when absent.
    public func integer(_ long: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(long) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "--\(long) wants a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}

/// A command line that does not fit its declaration; the message says what to change.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
