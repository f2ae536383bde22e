import Foundation
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

    /// Foundation keeps one value of a key written twice without a word; a config says so.
    @Test(arguments: [
        ("{\"listen\": \"a\",\n \"listen\": \"b\"}", "listen", 2, 2),
        (#"{"queue": {"x": 1}, "page": {"x": 1, "y": [{"k": 1, "k": 2}]}}"#, "page.y[0].k", 1, 53),
        (#"{"a": {"b": 1}, "a": {"b": 1}}"#, "a", 1, 17),
    ])
    func aKeyTwiceInOneObjectIsFoundWithItsPathAndWhere(json: String, path: String, line: Int, column: Int) {
        let found = JSONSyntax.repeatedKey(in: Array(json.utf8))
        #expect(found?.path == path)
        #expect(found?.line == line && found?.column == column, "\(String(describing: found))")
    }

    /// Keys are compared as a decoder reads them, after unescaping: `"q\u0074y"` is `"qty"`, in any
    /// case of hex digit, through a surrogate pair, and in a form canonically equal to it.
    @Test(arguments: [
        (#"{"qty":1,"q\u0074y":7}"#, "qty"), (#"{"q\u0074y":1,"\u0071ty":7}"#, "qty"),
        (#"{"q\u0074y":1,"q\u0074y":7}"#, "qty"), (#"{"\u00E9":1,"\u00e9":7}"#, "é"),
        (#"{"a/b":1,"a\/b":2}"#, "a/b"), (#"{"x":{"\ud83d\ude00":1,"😀":2}}"#, "x.😀"),
        (#"{"\u00e9":1,"e\u0301":2}"#, "é"), (#"{"K":1,"\u212A":2}"#, "K"),
        (#"{"a":1,"\u0000":2,"\u0000":3}"#, #"\u0000"#), (#"{"\uD800":1,"\ud800":2}"#, #"\ud800"#),
    ])
    func aKeyWrittenWithEscapesIsTheSameKey(json: String, path: String) {
        #expect(JSONSyntax.repeatedKey(in: Array(json.utf8))?.path == path, "\(json)")
    }

    @Test(arguments: [#"{"qty":1,"q\u0054y":7}"#, #"{"\ud83d\ude00":1,"\ud83d\ude01":2}"#, #"{"a\\b":1,"a/b":2}"#])
    func keysThatDecodeDifferentlyAreNoRepeat(json: String) {
        #expect(JSONSyntax.repeatedKey(in: Array(json.utf8)) == nil, "\(json)")
    }

    @Test(arguments: [#"{"a": {"k": 1}, "b": {"k": 1}}"#, #"[{"k": 1}, {"k": 2}]"#, #"{"a": 1, "a""#, "{}"])
    func theSameKeyInDifferentObjectsOrBrokenTextIsNoRepeat(json: String) {
        #expect(JSONSyntax.repeatedKey(in: Array(json.utf8)) == nil)
    }

    /// Any depth is described without running out of stack, on a thread with the stack a server's
    /// worker has (1 MiB; a debug build once overflowed it describing 513 levels).
    @Test func anyDepthIsDescribedOnASmallStack() async {
        let described = await withCheckedContinuation { continuation in
            let thread = Thread {
                var found: [String?] = []
                for depth in [129, 513, 100_000] {
                    let json = Array(("{\"x\":" + String(repeating: "[", count: depth)).utf8)
                    found.append(JSONSyntax.problem(in: json))
                    _ = JSONSyntax.numbersNotInts(in: json, atMost: 1)
                    _ = JSONSyntax.repeatedKey(in: json)
                }
                continuation.resume(returning: found)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        let refusal = "the JSON is nested more than 128 deep at line 1, column 133"
        #expect(described.allSatisfy { $0 == refusal }, "\(described)")
    }

    @Test func problemsSayWhereTheTextStopsBeingJSON() {
        #expect(JSONSyntax.problem(in: Array(#"{"a": tru}"#.utf8)) == "this is not valid JSON at line 1, column 7")
        #expect(JSONSyntax.problem(in: Array("{\n\"a\": [1,".utf8)) == "the JSON ends early at line 2, column 9")
        let deep = Array(String(repeating: "[", count: 600).utf8)
        #expect(JSONSyntax.problem(in: deep)?.hasPrefix("the JSON is nested more than 128 deep") == true)
        #expect(JSONSyntax.problem(in: Array(#"{"a":[1.5]}"#.utf8)) == nil)
    }
}
