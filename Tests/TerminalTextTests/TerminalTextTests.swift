import Foundation
import Testing

@testable import TerminalText

@Suite struct TerminalTextTests {
    @Test func controlsAndDirectionMarksAreWrittenAsEscapes() {
        #expect(TerminalText.printable("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(TerminalText.printable("x\u{1B}[2J\u{7}") == #"x\u{1B}[2J\u{7}"#)
        #expect(TerminalText.printable("\u{9B}31m \u{7F}") == #"\u{9B}31m \u{7F}"#)
        #expect(TerminalText.printable("gnp.\u{202E}exe") == #"gnp.\u{202E}exe"#)
        #expect(TerminalText.printable("\u{2028}\u{2066}\u{200F}") == #"\u{2028}\u{2066}\u{200F}"#)
        // Everything else, other scripts and combining marks included, is left as it is.
        #expect(TerminalText.printable("Ünïcödé 日本 é") == "Ünïcödé 日本 é")
    }

    @Test func clippingKeepsTheLimitAndSaysItCut() {
        #expect(TerminalText.clipped("short", to: 10) == "short")
        #expect(TerminalText.clipped("exactly10!", to: 10) == "exactly10!")
        #expect(TerminalText.clipped("eleven char", to: 10) == "eleven ch…")
        #expect(TerminalText.clipped("abc", to: 0) == "")
    }

    /// `--json` keeps its JSON, but nothing in it acts on a terminal: JSON's own escapes.
    @Test func jsonIsMadeSafeWithJSONsOwnEscapes() throws {
        let json = #"{"a":"x\#u{9B}2J\#u{202E}y\#u{7F}","b":"plain é"}"#
        let safe = TerminalText.jsonSafe(json)
        #expect(safe == #"{"a":"x\u009b2J\u202ey\u007f","b":"plain é"}"#)
        let read = try JSONSerialization.jsonObject(with: Data(safe.utf8)) as? [String: String]
        #expect(read == ["a": "x\u{9B}2J\u{202E}y\u{7F}", "b": "plain é"])
    }
}
