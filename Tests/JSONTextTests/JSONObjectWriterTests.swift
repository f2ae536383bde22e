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
}
