extension CommandNode {
    /// The `--help` text, generated from the declaration: usage line, commands or arguments and
    /// options (with their defaults), the rules between options, then the discussion.
    var helpText: String {
        var lines = [abstract, ""]
        if isGroup {
            lines.append("Usage: \(invocation) \(defaultChild == nil ? "COMMAND" : "[COMMAND]") [options]")
            lines += ["", "Commands:"]
            lines += Table.rows(
                children.map { child in
                    (child.name, child.abstract + (child.name == defaultChild ? " (the default)" : ""))
                })
        } else {
            let options = specification.options
            lines.append("Usage: \(invocation)\(options.isEmpty ? "" : " [options]")\(argumentSynopsis)")
            if !specification.arguments.isEmpty {
                lines += ["", "Arguments:"]
                lines += Table.rows(
                    specification.arguments.map { ($0.name + ($0.maximum == nil ? "..." : ""), $0.help) })
            }
            lines += ["", "Options:"]
            lines += Table.rows(
                options.map { option in
                    var left = option.short.map { "-\($0), " } ?? "    "
                    left += "--\(option.long)"
                    if let valueName = option.valueName { left += " \(valueName)" }
                    return (left, option.help)
                } + [("-h, --help", "Show this help.")])
            if !specification.rules.isEmpty {
                lines += [""] + specification.rules.flatMap { Table.wrap($0.sentence, width: 100) }
            }
        }
        if !discussion.isEmpty { lines += ["", discussion] }
        if isGroup {
            lines += ["", "Run '\(invocation) COMMAND --help' for a command's options."]
        }
        return lines.joined(separator: "\n")
    }

    private var argumentSynopsis: String {
        specification.arguments.map { argument in
            let text = argument.name + (argument.maximum == nil ? "..." : "")
            return argument.minimum == 0 ? " [\(text)]" : " \(text)"
        }.joined()
    }
}

/// Two aligned columns for help; the right one wraps under itself.
enum Table {
    static func rows(_ rows: [(String, String)]) -> [String] {
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
