/// An option without a value (`--json`): a stored property of a ``CommandArguments`` declares it,
/// and the command reads it as a `Bool`.
///
///     var json = Flag("json", help: "Print JSON.")       // declared
///     if arguments[\.json] { … }                          // read
public struct Flag: Sendable, Declared {
    let spec: OptionSpec

    public init(_ long: String, short: Character? = nil, help: String) {
        spec = OptionSpec(
            long: long, short: short, valueName: nil, help: help, repeating: false, convert: { !$0.isEmpty })
    }

    var declaration: Declaration { .option(spec) }
}
