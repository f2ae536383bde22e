extension CommandSpec {
    /// The `--help` text of this command, as invoked by `program`.
    public func helpText(program: String) -> String {
        var lines = [
            "\(abstract)", "", "Usage: \(program) \(name)\(options.isEmpty ? "" : " [options]")\(argumentSynopsis)",
        ]
        if !arguments.isEmpty {
            lines += ["", "Arguments:"]
            lines += Self.table(arguments.map { ($0.name + ($0.repeating ? "..." : ""), $0.help) })
        }
        if !options.isEmpty {
            lines += ["", "Options:"]
            lines += Self.table(
                options.map { option in
                    var left = option.short.map { "-\($0), " } ?? "    "
                    left += "--\(option.long)"
                    if let valueName = option.valueName { left += " \(valueName)" }
                    return (left, option.help)
                } + [("-h, --help", "Show this help.")])
        }
        if !discussion.isEmpty { lines += ["", discussion] }
        return lines.joined(separator: "\n")
    }

    private var argumentSynopsis: String {
        arguments.map { argument in
            let text = argument.name + (argument.repeating ? "..." : "")
            return argument.optional ? " [\(text)]" : " \(text)"
        }.joined()
    }

    /// Two aligned columns; help text wraps under itself.
    static func table(_ rows: [(String, String)]) -> [String] {
        let width = min(28, (rows.map(\.0.count).max() ?? 0) + 2)
        return rows.flatMap { left, help in
            let wrapped = wrap(help, width: 100 - width - 2)
            let first = "  " + left + String(repeating: " ", count: max(1, width - left.count))
            let pad = String(repeating: " ", count: width + 2)
            if left.count >= width {
                return ["  " + left] + wrapped.map { pad + $0 }
            }
            return [first + (wrapped.first ?? "")] + wrapped.dropFirst().map { pad + $0 }
        }
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
