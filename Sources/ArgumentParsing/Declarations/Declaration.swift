/// What parsing and help need to know of one declared option, whatever its value's type.
struct OptionSpec: Sendable {
    var long: String
    var short: Character?
    /// The placeholder for the value in help (`N`, `FILE`); nil for a flag.
    var valueName: String?
    /// The help text as shown, with the default (or "Required.") added.
    var help: String
    /// Whether it may be given more than once, every value kept (otherwise a second one is a usage
    /// error).
    var repeating: Bool
    /// Makes the value the command reads from the texts given (none when the option is absent).
    var convert: @Sendable ([String]) throws(UsageError) -> any Sendable

    var isFlag: Bool { valueName == nil }
    /// The key its value is stored under, and its name in messages.
    var key: String { "--\(long)" }
}

/// What parsing and help need to know of one declared positional argument.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    /// The fewest and most values it takes (nil: any number).
    var minimum: Int
    var maximum: Int?
    var convert: @Sendable ([String]) throws(UsageError) -> any Sendable

    var key: String { name }
}

/// A declaration found among a ``CommandArguments``' stored properties.
enum Declaration: Sendable {
    case option(OptionSpec)
    case argument(ArgumentSpec)

    var key: String {
        switch self {
        case .option(let option): option.key
        case .argument(let argument): argument.key
        }
    }
}

/// Implemented by ``Flag``, ``Option`` and ``Argument``: how a stored property declares itself.
protocol Declared: Sendable {
    var declaration: Declaration { get }
}

/// Runs `parse` on each text, naming `subject` before what it throws: `--jobs` + `wants a whole
/// number…`, or `--listen` + `: 'x' is not a listen address`.
func converting<T>(
    _ texts: [String], subject: String, _ parse: (String) throws(UsageError) -> T
) throws(UsageError) -> [T] {
    var values: [T] = []
    for text in texts {
        do {
            values.append(try parse(text))
        } catch {
            throw UsageError(subject + (error.message.hasPrefix(":") ? "" : " ") + error.message)
        }
    }
    return values
}

/// The integer in `text` if it lies in `range`; the error says what was wanted.
func integer(_ text: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
    guard let number = Int(text), range.contains(number) else {
        throw UsageError("wants a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
    }
    return number
}
