import Foundation
import JSONText
import Synchronization
import Testing

@testable import Logging

/// Every line the `Logger` writes is one JSON object with `time` and `level` first, its metadata,
/// then the event's fields; under systemd's journal each carries its level's priority.
@Suite struct LoggerTests {
    /// The line as a JSON object (fails the test when it is not one).
    static func object(_ line: String) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(parsed as? [String: Any], "not an object: \(line)")
    }

    @Test func everyLineIsJSONWithTimeAndLevelFirstThenMetadataThenFields() throws {
        let collected = CollectedLog()
        var logger = collected.logger
        logger[metadataKey: "station"] = "station-1"
        let forAcme = logger.with("org", "acme")
        forAcme.warning("scanner_lost", ["device": "/dev/scanpick/scanner-0", "message": "a \"quoted\"\nword"])
        logger.info("listening", ["port": .number(8080), "tls": .bool(false), "ms": .milliseconds(1.25)])
        logger.log(.error, event: nil) { $0.add("status", number: 500) }
        logger.error("failed", ["error": .error(CocoaError(.fileNoSuchFile))])

        let lines = collected.lines
        #expect(lines.count == 4)
        for line in lines {
            let object = try Self.object(line)
            #expect(object["time"] is String, "\(line)")
            #expect(object["level"] is String, "\(line)")
            #expect(line.hasPrefix(#"{"time":""#), "\(line)")
        }
        #expect(
            lines[0].contains(#""level":"warning","event":"scanner_lost","station":"station-1","org":"acme","device""#))
        #expect(try Self.object(lines[0])["message"] as? String == "a \"quoted\"\nword")
        #expect(lines[1].hasSuffix(#""event":"listening","station":"station-1","port":8080,"tls":false,"ms":1.250}"#))
        #expect(lines[2].hasSuffix(#""level":"error","station":"station-1","status":500}"#))
        let time = try #require(try Self.object(lines[0])["time"] as? String)
        #expect(time.hasSuffix("Z") && time.count == 24, "\(time)")
    }

    /// A field named like a metadata key wins: no line holds a key twice.
    @Test func aFieldOverridesMetadataOfTheSameName() throws {
        let collected = CollectedLog()
        let logger = collected.logger.with("org", "acme")
        logger.info("batch_opened", ["org": "globex"])
        let line = try #require(collected.lines.first)
        #expect(line.components(separatedBy: #""org":"#).count == 2, "\(line)")
        #expect(try Self.object(line)["org"] as? String == "globex")
    }

    @Test func eventsBelowTheLevelAreNotWritten() {
        let collected = CollectedLog()
        var logger = collected.logger
        logger.level = .notice
        logger.info("routine")
        logger.debug("noise")
        logger.notice("listening")
        logger.critical("watchdog")
        #expect(collected.lines.count == 2)
        #expect(!logger.logs(.info) && logger.logs(.warning))
    }

    /// journald reads `<N>` as the line's priority (`journalctl -p warning`): err is 3, crit 2.
    @Test func theJournalGetsEachLevelsSyslogPriority() throws {
        let written = CollectedLines()
        let logger = Logger(sink: LogSink(journal: true, write: written.add), level: .trace)
        let expected: [(Logger.Level, String)] = [
            (.critical, "<2>"), (.error, "<3>"), (.warning, "<4>"), (.notice, "<5>"), (.info, "<6>"),
            (.debug, "<7>"), (.trace, "<7>"),
        ]
        for (level, _) in expected { logger.log(level, "event") }
        for ((level, prefix), line) in zip(expected, written.lines) {
            #expect(line.hasPrefix(prefix + "{"), "\(level): \(line)")
            let object = try Self.object(String(line.dropFirst(prefix.count)))
            #expect(object["level"] as? String == level.name)
            #expect(Logger.Level(name: level.name) == level)
        }
        let plain = CollectedLines()
        Logger(sink: LogSink(journal: false, write: plain.add)).error("start_failed")
        #expect(plain.lines.first?.hasPrefix("{") == true)
    }
}

/// Lines handed to a sink, in order.
final class CollectedLines: Sendable {
    private let collected = Mutex<[String]>([])
    var lines: [String] { collected.withLock { $0 } }
    @Sendable func add(_ line: String) { collected.withLock { $0.append(line) } }

    /// A line built by hand takes its level from the journal's table of events, as its priority is.
    @Test func anEventsLevelIsTheOneTheJournalsTableGivesIt() {
        #expect(Logger.Level(event: "scan_failed") == .error)
        #expect(Logger.Level(event: "scanner_lost") == .warning)
        #expect(Logger.Level(event: "config_reloaded") == .notice)
        #expect(Logger.Level(event: "scan") == .info)
        #expect(Logger.Level(event: "no_such_event") == .info)
        #expect(Logger.Level(event: "watchdog") == .critical)
    }
}
