import Foundation
import Testing

@testable import JSONText

@Suite struct JSONObjectWriterTests {
    @Test func writesKeysInOrderWithEscapes() {
        var line = JSONObjectWriter()
        line.add("b", string: "q\"\\\n\u{1}")
        line.add("a", number: -3)
        line.add("ms", milliseconds: 12.3456)
        line.add("small", milliseconds: 0.0004)
        line.add("ok", bool: true)
        #expect(line.finished() == #"{"b":"q\"\\\n\u0001","a":-3,"ms":12.346,"small":0.000,"ok":true}"#)
    }

    @Test func writesNumbersAtTheirLimitsAndTimesAsTimestamps() {
        var line = JSONObjectWriter()
        line.add("min", number: Int.min)
        line.add("max", number: Int.max)
        line.add("zero", number: 0)
        line.add("late", milliseconds: -1.5)
        line.add("huge", milliseconds: 1e300)
        line.add("nan", milliseconds: .nan)
        line.add("at", time: Date(timeIntervalSince1970: 1_796_036_400.5))
        line.add("inner", raw: Array(#"{"a":1}"#.utf8))
        #expect(
            line.finished()
                == #"{"min":-9223372036854775808,"max":9223372036854775807,"zero":0,"late":-1.500,"#
                + #""huge":9000000000000.000,"nan":0.000,"at":"2026-11-30T11:00:00.500Z","inner":{"a":1}}"#)
    }

    /// Every control character is escaped and everything else is kept byte for byte, as
    /// Foundation's decoder reads it back.
    @Test func escapesWhatJSONRequiresAndKeepsTheRest() throws {
        let value = String((0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }) + "é☃/𝄞"
        var line = JSONObjectWriter()
        line.add("v", string: value)
        let read = try JSONDecoder().decode([String: String].self, from: Data(line.finishedBytes()))
        #expect(read["v"] == value)
        #expect(line.finished().contains(#"\u001f"#))
        #expect(!line.finished().contains("\u{1F}"))
    }
}
