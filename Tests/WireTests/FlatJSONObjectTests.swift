import Foundation
import Testing

@testable import Wire

/// The plain path reads only what `JSONDecoder` reads the same way: whenever it gives a value, the
/// full decoder gives the same one, and it gives one for what stations send.
@Suite struct FlatJSONObjectTests {
    static let scan =
        #"{"pickTaskId":"task-1","barcode":"4006381333931","scannedAt":"2026-12-01T10:00:00.000Z","#
        + #""idempotencyKey":"k-1","workerId":"w1"}"#
    static let pick =
        #"{"pickTaskId":"task-1","qty":2,"idempotencyKey":"k-2","workerId":"w1","at":"2026-12-01T10:00:00.000Z"}"#
    static let setQty = #"{"pickTaskId":"task-1","from":1,"to":3,"idempotencyKey":null,"workerId":"w1","at":"t"}"#
    static let short =
        #"{"pickTaskId":"task-1","qty":2,"reason":"not_found","idempotencyKey":"k","workerId":"w1","at":"t"}"#

    /// Each body, and the same body with one field's value or the text around it changed.
    static func variants(of body: String) -> [String] {
        let replacements: [(String, String)] = [
            (#":2,"#, #":0,"#), (#":2,"#, #":-0,"#), (#":2,"#, #":-17,"#), (#":2,"#, #":02,"#), (#":2,"#, #":2.0,"#),
            (#":2,"#, #":2e0,"#), (#":2,"#, #":123456789012345678,"#), (#":2,"#, #":1234567890123456789,"#),
            (#":2,"#, #":99999999999999999999,"#), (#":2,"#, #":-9223372036854775808,"#), (#":2,"#, #":"2","#),
            (#":2,"#, #":null,"#), (#":2,"#, #":-,"#), (#":2,"#, #":true,"#), (#":1,"#, #": 1 ,"#),
            (#""k-1""#, "null"), (#""k-1""#, "7"), (#""k-2""#, "null"), (#","idempotencyKey":"k-1""#, ""),
            (#","idempotencyKey":"k-2""#, ""), (#""k-1""#, #""k\"1""#), (#""w1""#, #""w\u0031""#),
            (#""w1""#, #""w\n""#), (#""w1""#, "\"w\u{1}\""), (#""w1""#, "\"w\u{7F}\""), (#""w1""#, #""wé""#),
            (#""w1""#, #"["w1"]"#), (#""w1""#, #"{"a":1}"#), (#""w1""#, #""w1","workerId":"w2""#),
            (#""w1""#, #""w1","extra":1"#), (#""w1""#, #""w1","#), (#""task-1""#, #""""#), ("{", " \n\t{ "),
            ("}", " }\r\n"), ("}", "} x"), ("}", "}}"), (#"":"#, #"" : "#), (#"",""#, #"" , ""#),
            (#""pickTaskId""#, #""pickTaskID""#),
        ]
        return [body, "", "{}", "[]", "null", "\u{FEFF}" + body, String(body.dropLast())]
            + replacements.filter { body.contains($0.0) }.map { body.replacingOccurrences(of: $0.0, with: $0.1) }
    }

    func agree<T: FlatJSONDecodable & Equatable>(_ type: T.Type, _ plain: String) throws {
        let plainValue = FlatJSONObject(Array(plain.utf8)).flatMap(T.init(flat:))
        #expect(plainValue != nil, "the plain path must take what stations send: \(plain)")
        for body in Self.variants(of: plain) {
            let flat = FlatJSONObject(Array(body.utf8)).flatMap(T.init(flat:))
            let full = try? JSONDecoder().decode(T.self, from: Data(body.utf8))
            if let flat { #expect(flat == full, "\(body)") }
        }
    }

    @Test func readsWhatJSONDecoderReadsTheSameWay() throws {
        try agree(SubmitScanRequest.self, Self.scan)
        try agree(PickRequest.self, Self.pick)
        try agree(SetQtyRequest.self, Self.setQty)
        try agree(ShortPickRequest.self, Self.short)
    }

    @Test func takesOnlyPlainObjects() {
        let object = FlatJSONObject(Array(#" { "a" : "x" , "b":-12,"c":null } "#.utf8))
        #expect(object?["a"] == .string("x"))
        #expect(object?["b"] == .integer(-12))
        #expect(object?["c"] == .null)
        #expect(object?["d"] == nil)
        #expect(FlatJSONObject(Array("{}".utf8))?.fields.isEmpty == true)
        let most = (1...FlatJSONObject.maxFields).map { #""f\#($0)":1"# }.joined(separator: ",")
        #expect(FlatJSONObject(Array("{\(most)}".utf8))?.fields.count == FlatJSONObject.maxFields)
        for refused in [
            #"{"a":"x","a":"y"}"#, #"{"a":"\u0041"}"#, #"{"qty":1,"q\u0074y":7}"#, #"{"a":1.5}"#, #"{"a":[1]}"#,
            #"{"a":1}x"#, #"{"a":1,}"#,
            #"{"a":1234567890123456789}"#, #"{"a":01}"#, #"{"é":1}"#, #"{"a":nul}"#, #"{"a":true}"#, "{", "",
            "{" + (0...FlatJSONObject.maxFields).map { #""f\#($0)":1"# }.joined(separator: ",") + "}",
        ] {
            #expect(FlatJSONObject(Array(refused.utf8)) == nil, "\(refused)")
        }
    }

    @Test func readsAnOptionalStringOnlyWhenItIsOne() throws {
        let object = try #require(FlatJSONObject(Array(#"{"a":"x","b":null,"c":1}"#.utf8)))
        #expect(object.optionalString("a") == .some("x"))
        #expect(object.optionalString("b") == .some(nil))
        #expect(object.optionalString("z") == .some(nil))
        #expect(object.optionalString("c") == nil)
        #expect(object.hasOnly(["a", "b", "c"]))
        #expect(!object.hasOnly(["a", "b"]))
    }
}
