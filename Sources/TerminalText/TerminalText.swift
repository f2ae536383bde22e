/// Text from outside the program (a file's name, a station's name as a server sent it) as one line
/// of a terminal shows it: a character that could start a new line, move the cursor, send the
/// terminal a command or reverse the text around it is written as an escape instead, so such a
/// value can neither fake a line of output nor act on the reader's terminal.
///
///     print("scanpick: \(TerminalText.printable(path)): not an image")
public enum TerminalText {
    /// `text` with C0 and C1 control characters, DEL, line and paragraph separators and the
    /// bidirectional marks, embeddings, overrides and isolates written as `\n`, `\r`, `\t` or
    /// `\u{…}`.
    public static func printable(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: shown += "\\n"
            case 0x0D: shown += "\\r"
            case 0x09: shown += "\\t"
            case 0...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069:
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// JSON text (a command's `--json`) with the characters ``printable(_:)`` escapes that JSON
    /// encoders leave raw (C1 controls, DEL, line and paragraph separators, bidirectional marks)
    /// written as JSON's own `\uXXXX` escapes: the same JSON, read back to the same strings, but
    /// nothing a terminal acts on. (Such characters only occur inside JSON strings.)
    public static func jsonSafe(_ json: String) -> String {
        var shown = ""
        for scalar in json.unicodeScalars {
            switch scalar.value {
            case 0...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069:
                let hex = String(scalar.value, radix: 16)
                shown += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// `text` cut to at most `limit` characters, the last of them `…` when it was cut.
    public static func clipped(_ text: String, to limit: Int) -> String {
        guard limit > 0 else { return "" }
        return text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
