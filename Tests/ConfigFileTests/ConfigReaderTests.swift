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
        var queue = try #require(try config.object("queue"))
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
}
