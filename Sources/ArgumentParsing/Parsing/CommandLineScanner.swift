/// Sorts command-line words into option values and positionals by the declared options:
/// `--name value`, `--name=value`, `-n value`, `-nvalue`, grouped short flags (`-qv`), `--` to end
/// options. Unknown options are usage errors naming the ones that exist.
struct CommandLineScanner {
    let options: [OptionSpec]

    init(_ options: [OptionSpec]) { self.options = options }

    struct Scanned {
        /// The texts given for each option, by key, in order (a flag: one empty text per use).
        var options: [String: [String]] = [:]
        var positionals: [String] = []
    }

    func scan(_ arguments: [String]) throws(UsageError) -> Scanned {
        var scanned = Scanned()
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                scanned.positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                guard let option = options.first(where: { $0.long == name }) else {
                    throw UsageError("unknown option '--\(name)'" + suggestion(for: name))
                }
                try take(option, inlineValue: inlineValue, remaining: &remaining, into: &scanned)
            } else {
                var letters = argument.dropFirst()
                while let letter = letters.popFirst() {
                    guard let option = options.first(where: { $0.short == letter }) else {
                        throw UsageError("unknown option '-\(letter)'" + suggestion(for: nil))
                    }
                    let inline = option.isFlag || letters.isEmpty ? nil : String(letters)
                    try take(option, inlineValue: inline, remaining: &remaining, into: &scanned)
                    if inline != nil { break }
                }
            }
        }
        return scanned
    }

    private func take(
        _ option: OptionSpec, inlineValue: String?, remaining: inout ArraySlice<String>, into scanned: inout Scanned
    ) throws(UsageError) {
        if option.isFlag {
            guard inlineValue == nil else { throw UsageError("--\(option.long) takes no value") }
            scanned.options[option.key, default: []].append("")
            return
        }
        guard let value = inlineValue ?? remaining.popFirst() else {
            throw UsageError("--\(option.long) needs a value (\(option.valueName ?? "VALUE"))")
        }
        // A value given twice is a slip more often than an override (`--qty 1 --qty 5` at a pick
        // station): said, not settled by keeping one of them.
        if !option.repeating, let first = scanned.options[option.key]?.first {
            throw UsageError(
                "--\(option.long) is given twice ('\(first.prefix(80))' and '\(value.prefix(80))'): give it once")
        }
        scanned.options[option.key, default: []].append(value)
    }

    /// " (did you mean '--jobs'?)" for a near miss, else the options there are.
    private func suggestion(for name: String?) -> String {
        if let name, let close = Suggestion.closest(to: name, among: options.map(\.long)) {
            return " (did you mean '--\(close)'?)"
        }
        let known = options.map { "--\($0.long)" } + ["--help"]
        return " (this command takes \(listing(known, joinedBy: "and")))"
    }
}

/// The declared name a mistyped one most likely meant.
enum Suggestion {
    /// The candidate within a small edit distance of `typed` (or of which it is a prefix), if one.
    static func closest(to typed: String, among candidates: [String]) -> String? {
        guard !typed.isEmpty else { return nil }
        let scored = candidates.map { candidate -> (String, Int) in
            if candidate.hasPrefix(typed) || typed.hasPrefix(candidate) { return (candidate, 0) }
            return (candidate, distance(Array(typed), Array(candidate)))
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, min(2, typed.count / 3)) else {
            return nil
        }
        return best.0
    }

    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`; the words are short.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard a.count <= 64, b.count <= 64 else { return Int.max }
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var rows = [Array(0...b.count)]
        for i in 1...a.count {
            var row = [i]
            for j in 1...b.count {
                var best = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, rows[i - 2][j - 2] + 1) }
                row.append(best)
            }
            rows.append(row)
        }
        return rows[a.count][b.count]
    }
}
