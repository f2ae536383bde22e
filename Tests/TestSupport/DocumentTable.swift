import Foundation

/// A Markdown table of a committed document, read as its first two columns, for tests that check
/// what a document states (a configuration key's default) against the code.
///
///     let rows = try DocumentTable.rows(containing: "queue.backoffInitialSeconds")
///     #expect(rows["`queue.backoffCapSeconds`"] == "60")
public enum DocumentTable {
    /// The first two cells (trimmed) of each row of the table in `document` (relative to the
    /// repository root) that has a row for `key` (its first cell is `` `key` ``), by the first cell.
    public static func rows(in document: String = "README.md", containing key: String) throws -> [String: String] {
        let text = try String(contentsOfFile: Repository.root + "/" + document, encoding: .utf8)
        let tables = text.components(separatedBy: "\n").split { !$0.hasPrefix("|") }
        guard let table = tables.first(where: { $0.contains { $0.hasPrefix("| `\(key)`") } }) else {
            throw DocumentTableError(message: "\(document) has no table with a row for `\(key)`")
        }
        var rows: [String: String] = [:]
        for line in table {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 2 { rows[cells[0]] = cells[1] }
        }
        return rows
    }

    /// `2`, `1.5`: a number as the documents write it.
    public static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A document lacks the table a test looks for.
public struct DocumentTableError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
