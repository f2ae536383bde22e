import Foundation
import Testing

@testable import ConfigFile

@Suite struct ConfigReaderTests {
    func reader(_ json: String) throws -> ConfigReader { try ConfigReader(data: Data(json.utf8), file: "c.json") }

    @Test func readsTypedValuesWithDefaults() throws {
        var config = try reader(#"{"name": "bench-1", "on": true, "n": 3, "queue": {"cap": 60}}"#)
        #expect(try config.string("name") == "bench-1")
        #expect(try config.bool("on", default: false))
        #expect(try config.integer("n", default: 1, in: 1...10) == 3)
        #expect(try config.string("absent", default: "x") == "x")
        var queue = try #require(try config.object("queue"))
        #expect(try queue.number("cap", default: 1, in: 1...600) == 60)
        try queue.finish()
        try config.finish()
    }

    @Test func namesUnknownKeysAndBadValues() throws {
        var config = try reader(#"{"queue": {"capp": 1}, "n": 99, "flag": 1, "nested": []}"#)
        let queue = try #require(try config.object("queue"))
        #expect(
            throws: ConfigError(
                file: "c.json", key: "queue.capp",
                problem: "is not a known setting (check its spelling; see the README's configuration reference)")
        ) {
            try queue.finish()
        }
        #expect(throws: ConfigError(file: "c.json", key: "n", problem: "must be from 1 to 10")) {
            try config.integer("n", default: 1, in: 1...10)
        }
        #expect(throws: ConfigError(file: "c.json", key: "flag", problem: "must be true or false")) {
            try config.bool("flag", default: false)
        }
        #expect(throws: ConfigError(file: "c.json", key: "nested", problem: "must be a JSON object")) {
            try config.object("nested")
        }
        #expect(throws: ConfigError.self) { try ConfigReader(data: Data("[1]".utf8), file: "c.json") }
        #expect(throws: ConfigError.self) { try ConfigReader(contentsOf: "/nonexistent.json") }
    }

    @Test func aMisspeltKeyIsNamedWithTheKeyItWasMeantToBe() throws {
        var config = try reader(#"{"wroker": "picker", "station": "s1", "Listen": "x", "sevrer": "y"}"#)
        #expect(
            throws: ConfigError(
                file: "c.json", key: "wroker",
                problem: #"is not a known setting; did you mean "worker"? ("worker" is required)"#)
        ) { try config.requiredString("worker") }
        var optional = try reader(#"{"station": "s1", "Listen": "x", "sevrer": "y", "zzz": 1}"#)
        _ = try optional.requiredString("station")
        _ = try optional.string("listen")
        _ = try optional.string("server")
        #expect(
            throws: ConfigError(
                file: "c.json", key: "Listen", problem: #"is not a known setting; did you mean "listen"?"#)
        ) { try optional.finish() }
        #expect(ConfigReader.isNear("sevrer", "server"))
        #expect(ConfigReader.isNear("databse", "database"))
        #expect(!ConfigReader.isNear("tls", "token"))
        #expect(!ConfigReader.isNear("page", "queue"))
    }

    @Test func invalidJSONSaysWhereWithLineAndColumn() {
        let cases = [
            ("{\n  \"station\": \"s1\",\n  \"worker\": tru\n}", "this is not valid JSON at line 3, column 13"),
            ("{\n  \"station\": \"s1\",\n  \"worker\": tru}", "this is not valid JSON at line 3, column 13"),
            ("{\"a\" 1}", "this is not valid JSON at line 1, column 6"),
            ("{\n \"é\": \"x", "the JSON ends early at line 2, column 9"),
            ("{\"a\": [1, 2}", "this is not valid JSON at line 1, column 12"),
            ("{\"a\": 01}", "this is not valid JSON at line 1, column 8"),
            ("{\"a\": \"line\nbreak\"}", "this is not valid JSON at line 1, column 12"),
            ("{} {}", "this is not valid JSON at line 1, column 4"),
            ("", "the JSON ends early at line 1, column 1"),
            // A byte order mark (Windows Notepad) neither hides the mistake nor moves its column.
            ("\u{FEFF}{\n  \"station\": \"s1\"\n  \"worker\": \"w\"}", "this is not valid JSON at line 3, column 3"),
            (
                "{\"a\": " + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
                "the JSON is nested more than 128 deep at line 1, column 134"
            ),
        ]
        for (json, problem) in cases {
            #expect(throws: ConfigError(file: "c.json", key: nil, problem: problem)) {
                try ConfigReader(data: Data(json.utf8), file: "c.json")
            }
        }
    }

    @Test func aLoneValueIsNotAConfig() {
        for json in ["null", " 3", "[1]", "\"text\""] {
            #expect(throws: ConfigError(file: "c.json", key: nil, problem: "the top level must be a JSON object")) {
                try ConfigReader(data: Data(json.utf8), file: "c.json")
            }
        }
    }

    @Test func aSettingGivenTwiceIsAnError() {
        let json = "{\"station\": \"s1\",\n \"queue\": {\"backoffCapSeconds\": 30,\n  \"backoffCapSeconds\": 5}}"
        let problem = "is given twice (again at line 3, column 3): keep one"
        #expect(throws: ConfigError(file: "c.json", key: "queue.backoffCapSeconds", problem: problem)) {
            try ConfigReader(data: Data(json.utf8), file: "c.json")
        }
    }

    @Test func aListOfObjectsGivesOneReaderEachWithItsIndexInTheKeyPath() throws {
        var config = try reader(#"{"scanners": [{"device": "/dev/a"}, {"devise": "/dev/b"}], "bad": [1]}"#)
        var scanners = try #require(try config.objects("scanners"))
        #expect(try scanners[0].string("device") == "/dev/a")
        try scanners[0].finish()
        #expect(
            throws: ConfigError(
                file: "c.json", key: "scanners[1].devise",
                problem: #"is not a known setting; did you mean "device"? ("device" is required)"#)
        ) { try scanners[1].requiredString("device") }
        #expect(throws: ConfigError(file: "c.json", key: "bad[0]", problem: "must be a JSON object")) {
            try config.objects("bad")
        }
    }
}
