import Testing

@testable import ConfigFile

@Suite struct JSONSyntaxTests {
    /// Foundation's decoder refuses these for an `Int` field without naming it; the path names it.
    @Test(arguments: [
        (#"{"qty":1.5}"#, "qty"),
        (#"{"a":2.0,"b":1E2,"qty":9223372036854775808}"#, "qty"),
        (#"{"qty":-9223372036854775809}"#, "qty"),
        (#"{"units":[{"qty":1},{"qty":1e400}]}"#, "units[1].qty"),
        (#"[[0],[1,-0.5]]"#, "[1][1]"),
        (#"{"a\"b":{"c":18446744073709551616}}"#, #"a\"b.c"#),
    ])
    func theFirstNumberNoIntHoldsIsNamedByItsPath(json: String, path: String) {
        #expect(JSONSyntax.numbersNotInts(in: Array(json.utf8), atMost: 1) == [path])
    }

    @Test func severalAreNamedInDocumentOrderUpToTheLimit() {
        let json = Array(#"{"z":0.5,"a":[1,2.5],"qty":1e400,"more":-0.25}"#.utf8)
        #expect(JSONSyntax.numbersNotInts(in: json, atMost: 3) == ["z", "a[1]", "qty"])
        #expect(JSONSyntax.numbersNotInts(in: json, atMost: 0).isEmpty)
    }

    @Test(arguments: [
        #"{"qty":9223372036854775807,"low":-9223372036854775808,"e":1E2,"f":-2.0,"z":0}"#, #"[1,2,{"a":[]}]"#,
        #"{"qty":1.5"#,  // not JSON at all: that is another message's business
    ])
    func wholeNumbersInRangeAndBrokenTextNameNothing(json: String) {
        #expect(JSONSyntax.numbersNotInts(in: Array(json.utf8), atMost: 3).isEmpty)
    }

    @Test func problemsSayWhereTheTextStopsBeingJSON() {
        #expect(JSONSyntax.problem(in: Array(#"{"a": tru}"#.utf8)) == "this is not valid JSON at line 1, column 7")
        #expect(JSONSyntax.problem(in: Array("{\n\"a\": [1,".utf8)) == "the JSON ends early at line 2, column 9")
        let deep = Array(String(repeating: "[", count: 600).utf8)
        #expect(JSONSyntax.problem(in: deep)?.hasPrefix("the JSON is nested more than 512 deep") == true)
        #expect(JSONSyntax.problem(in: Array(#"{"a":[1.5]}"#.utf8)) == nil)
    }
}
