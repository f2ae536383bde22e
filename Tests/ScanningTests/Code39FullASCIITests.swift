import Testing

@testable import Scanning

/// Code 39 Full ASCII shifts, decoded only when every shift is defined.
@Suite struct Code39FullASCIITests {
    func decoded(_ printed: String) -> String? {
        Code39FullASCII.decode(Array(printed.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func shiftsSpellLowerCasePunctuationAndControls() {
        #expect(decoded("12+A+B") == "12ab")
        #expect(decoded("A+A-1234") == "Aa-1234")
        #expect(decoded("E+X+T+E+N+D+E+D /A%J/J/C") == "Extended !?*#")
        #expect(decoded("$M$J") == "\r\n")
        #expect(decoded("/Z%U%V") == ":\0@")
    }

    @Test func plainTextIsUnchangedAndAnUndefinedShiftIsNotFullASCII() {
        #expect(decoded("CODE 39-1234") == "CODE 39-1234")
        #expect(decoded("A/P") == nil)  // '/' shifts only A–O and Z
        #expect(decoded("12+") == nil)  // a shift with nothing after it
        #expect(decoded("+1") == nil)
    }
}
