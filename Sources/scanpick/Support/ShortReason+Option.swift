import ArgumentParsing
import TerminalText
import Wire

extension ShortReason {
    /// The reasons as `--reason` takes them: "not_found, damaged, other".
    static var choices: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// `--reason`'s value, or a usage error naming the choices.
    @Sendable static func parse(_ text: String) throws(UsageError) -> ShortReason {
        guard let reason = ShortReason(rawValue: text) else {
            throw UsageError(
                "wants one of \(choices), not '\(TerminalText.printable(TerminalText.clipped(text, to: 40)))'")
        }
        return reason
    }
}
