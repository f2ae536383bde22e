import Foundation
import Testing

@testable import ConfigFile

@Suite struct ConfigReaderTests {
    func reader(_ json: String) throws -> ConfigReader { try ConfigReader(data: Data(json.utf8), file: "c.json") }

    /// A config (or a file it names) that other users can change hands them the service: its server
    /// URL, and with it the organisation's bearer token at the next reload. Refused with the fix;
    /// a file that only its owner and the service's own group can change is taken.
    @Test func aFileOthersCanChangeIsRefusedWithTheFix() throws {
        let folder = NSTemporaryDirectory() + "scanpick-modes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/station.json"
        try Data(#"{"a": 1}"#.utf8).write(to: URL(fileURLWithPath: file))
        func problem(mode: mode_t, group: gid_t = getegid()) -> String? {
            chown(file, geteuid(), group)
            chmod(file, mode)
            do {
                _ = try ConfigReader(contentsOf: file)
                return nil
            } catch {
                return error.problem
            }
        }
        for mode: mode_t in [0o666, 0o646, 0o602, 0o1777] {
            let refusal = problem(mode: mode) ?? "accepted"
            #expect(refusal.hasPrefix("can be changed by every user of this machine (mode "), "\(refusal)")
            #expect(refusal.hasSuffix(": run `chmod o-w \(file)`"), "\(refusal)")
        }
        #expect(problem(mode: 0o644) == nil)
        #expect(problem(mode: 0o600) == nil)
        #expect(problem(mode: 0o664) == nil)  // the service's own group may write it
        if geteuid() == 0 {  // only root can give the file to a group it is not in
            let other: gid_t = getegid() == 1 ? 2 : 1
            let refusal = problem(mode: 0o664, group: other) ?? "accepted"
            #expect(refusal.contains("can be changed by group "), "\(refusal)")
            #expect(refusal.contains("run `chmod g-w \(file)`"), "\(refusal)")
            #expect(problem(mode: 0o644, group: other) == nil)
        }
    }

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
