extension CommandSpec {
    /// Parses `arguments` (without the program and command names): `--name value`, `--name=value`,
    /// `-n value`, grouped short flags (`-qv`), and `--` to end options.
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                guard let option = options.first(where: { $0.long == name }) else {
                    throw UsageError("unknown option '--\(name)'\(suggestion(for: name))")
                }
                try apply(option, inlineValue: inlineValue, remaining: &remaining, to: &parsed)
            } else {
                var letters = argument.dropFirst()
                while let letter = letters.popFirst() {
                    guard let option = options.first(where: { $0.short == letter }) else {
                        throw UsageError("unknown option '-\(letter)'")
                    }
                    let inline = option.isFlag || letters.isEmpty ? nil : String(letters)
                    try apply(option, inlineValue: inline, remaining: &remaining, to: &parsed)
                    if inline != nil { break }
                }
            }
        }
        if !parsed.wantsHelp { try checkPositionals(parsed.positionals) }
        return parsed
    }

    private func apply(
        _ option: OptionSpec, inlineValue: String?, remaining: inout ArraySlice<String>,
        to parsed: inout ParsedArguments
    ) throws(UsageError) {
        if option.isFlag {
            guard inlineValue == nil else { throw UsageError("--\(option.long) takes no value") }
            parsed.flags.insert(option.long)
            return
        }
        guard let value = inlineValue ?? remaining.popFirst() else {
            throw UsageError("--\(option.long) needs a value (\(option.valueName ?? "VALUE"))")
        }
        if option.repeating {
            parsed.values[option.long, default: []].append(value)
        } else {
            parsed.values[option.long] = [value]
        }
    }

    private func checkPositionals(_ positionals: [String]) throws(UsageError) {
        let required = arguments.filter { !$0.optional }.count
        let unbounded = arguments.contains { $0.repeating }
        if positionals.count < required, let missing = arguments.dropFirst(positionals.count).first {
            throw UsageError("missing \(missing.name)")
        }
        if !unbounded && positionals.count > arguments.count {
            throw UsageError("unexpected argument '\(positionals[arguments.count])'")
        }
    }

    private func suggestion(for name: String) -> String {
        let close = options.first { $0.long.hasPrefix(name) || name.hasPrefix($0.long) }
        return close.map { " (did you mean '--\($0.long)'?)" } ?? ""
    }
}
