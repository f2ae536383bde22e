import Foundation
import TerminalText

/// The result of scoring a batch against a manifest: one row per expected symbology, the images
/// that did not match, and a fixed-width table for people.
public struct Scorecard: Sendable {
    /// Row label for images where no code may be found.
    public static let noCodeLabel = "(no code)"

    /// How one image fared.
    public enum Verdict: String, Sendable {
        case correct, missed, misread
        case falsePositive = "false positive"
    }

    /// Tallies for one expected symbology.
    public struct Row: Sendable, Equatable {
        public var symbology: String
        public var images = 0
        public var correct = 0
        public var missed = 0
        public var misread = 0
        public var falsePositives = 0

        mutating func count(_ verdict: Verdict) {
            switch verdict {
            case .correct: correct += 1
            case .missed: missed += 1
            case .misread: misread += 1
            case .falsePositive: falsePositives += 1
            }
        }
    }

    /// An image that did not match its expectation.
    public struct Mismatch: Sendable, Equatable {
        public var file: String
        public var verdict: Verdict
        public var expected: String
        public var expectedSymbology: String
        public var found: [String]
        public var error: String?
    }

    public var rows: [Row]
    public var mismatches: [Mismatch]
    /// Decoded images the manifest does not mention.
    public var unlisted: Int
    /// Manifest entries that were not among the decoded images.
    public var notDecoded: [String]

    /// All rows added up.
    public var total: Row { sum(rows, label: "total") }

    /// The rows of images that should show a code, added up.
    public var withCode: Row { sum(rows.filter { $0.symbology != Self.noCodeLabel }, label: "with a code") }

    /// The images where no code may be found (zeros when the manifest lists none).
    public var withoutCode: Row { sum(rows.filter { $0.symbology == Self.noCodeLabel }, label: Self.noCodeLabel) }

    private func sum(_ rows: [Row], label: String) -> Row {
        rows.reduce(into: Row(symbology: label)) { sum, row in
            sum.images += row.images
            sum.correct += row.correct
            sum.missed += row.missed
            sum.misread += row.misread
            sum.falsePositives += row.falsePositives
        }
    }

    /// Whether every scored image matched its expectation.
    public var allMatch: Bool { mismatches.isEmpty }

    /// The per-symbology table, aligned, with a total row.
    public var table: String {
        let header = ["symbology", "images", "correct", "missed", "misread", "false+"]
        let body = (rows + [total]).map { row in
            [
                row.symbology, String(row.images), String(row.correct), String(row.missed), String(row.misread),
                String(row.falsePositives),
            ]
        }
        let all = [header] + body
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { cells in
            cells.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// One line per mismatch: `file: missed, expected EAN-13 5901234123457`.
    public var mismatchLines: [String] {
        mismatches.map { mismatch in
            var line = "\(TerminalText.printable(mismatch.file)): \(mismatch.verdict.rawValue)"
            if !mismatch.expected.isEmpty { line += ", expected \(mismatch.expectedSymbology) \(mismatch.expected)" }
            if !mismatch.found.isEmpty { line += ", found \(mismatch.found.joined(separator: " "))" }
            if let error = mismatch.error { line += " (\(error))" }
            return line
        }
    }
}
