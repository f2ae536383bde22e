import Foundation
import TestSupport
import Testing

/// The sources stay navigable without section markers: no Swift or JavaScript file under `Sources/` is over
/// ``maxLines`` lines or holds a `// MARK:`. A file that needs one holds more than one thing: it is
/// split by responsibility (a type's parts as extensions in files named for them,
/// `ActionQueue+DeadLetters.swift`), not by line count.
@Suite struct SourceLayoutTests {
    static let maxLines = 400

    /// What is wrong with the layout of the source file `path` holding `text`; empty when nothing is.
    static func problems(path: String, text: String) -> [String] {
        var found: [String] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let count = lines.count - (text.isEmpty || text.hasSuffix("\n") ? 1 : 0)  // as `wc -l` counts
        if count > maxLines {
            found.append("\(path) has \(count) lines (at most \(maxLines)): split it by responsibility")
        }
        for (index, line) in lines.enumerated() {
            let comment = line.drop { $0 == " " || $0 == "\t" }
            guard comment.hasPrefix("//") else { continue }
            if comment.drop(while: { $0 == "/" || $0 == " " }).hasPrefix("MARK") {
                found.append("\(path):\(index + 1) has a MARK comment: a file that needs one holds more than one thing")
            }
        }
        return found
    }

    /// Every Swift and JavaScript file under `Sources/` (the pages' scripts too), relative to the
    /// repository root.
    static func sources() throws -> [String] {
        let sources = Repository.root + "/Sources"
        let names = try FileManager.default.subpathsOfDirectory(atPath: sources)
        return names.filter { $0.hasSuffix(".swift") || $0.hasSuffix(".js") }.sorted().map { "Sources/" + $0 }
    }

    @Test func noSourceFileIsTooLongOrNeedsAMark() throws {
        let files = try Self.sources()
        #expect(files.count > 100, "the walk of Sources/ found only \(files.count) files")
        #expect(files.contains("Sources/Queue/ActionQueue.swift"))
        #expect(files.contains("Sources/Station/Page/page.js"))
        for path in files {
            let text = try String(contentsOfFile: Repository.root + "/" + path, encoding: .utf8)
            for problem in Self.problems(path: path, text: text) {
                Issue.record(Comment(rawValue: problem))
            }
        }
    }

    @Test func theCheckCountsLinesAsWcDoes() {
        let atLimit = String(repeating: "let x = 1\n", count: Self.maxLines)
        #expect(Self.problems(path: "A.swift", text: atLimit).isEmpty)
        #expect(Self.problems(path: "A.swift", text: atLimit + "let y = 2").count == 1)  // no final newline
        #expect(Self.problems(path: "A.swift", text: atLimit + "\n").count == 1)
        #expect(Self.problems(path: "A.swift", text: "").isEmpty)
    }

    @Test func theCheckFindsMarksHoweverWritten() {
        for marked in ["    // MARK: Pages", "// MARK: - Helpers", "\t//MARK: x", "/// MARK: y"] {
            let problems = Self.problems(path: "A.swift", text: "struct A {\n\(marked)\n}\n")
            #expect(problems == ["A.swift:2 has a MARK comment: a file that needs one holds more than one thing"])
        }
        #expect(Self.problems(path: "A.swift", text: "let s = \"MARK: not a comment\"\n// a remark\n").isEmpty)
    }
}
