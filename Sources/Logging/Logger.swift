import Foundation
import JSONText

/// How every part of a process logs, as swift-log has it: a value with a level and metadata
/// (station, organisation, request id …), passed down, copied and narrowed as it goes. Each event
/// becomes one JSON line made by one writer (``LogSink``): `time` and `level` first, then `event`,
/// the metadata and the event's own fields, never a token or a payload secret.
///
///     var logger = Logger(sink: .standardError)
///     logger[metadataKey: "station"] = "station-1"
///     logger.warning("scanner_lost", ["device": "/dev/scanpick/scanner-0", "message": "unplugged"])
///     // {"time":"2026-12-01T10:00:00.000Z","level":"warning","event":"scanner_lost","station":"station-1",…}
public struct Logger: Sendable {
    /// Events below this level are not written (default `.info`).
    public var level: Level
    /// Written with every event, in the order the keys were first set.
    public private(set) var metadata: [(key: String, value: String)] = []
    /// Where the lines go.
    public let sink: LogSink

    public init(sink: LogSink, level: Level = .info) {
        self.sink = sink
        self.level = level
    }

    /// A logger that writes nothing (for a library call whose caller does not log).
    public static let discarding = Logger(sink: .discarding)

    /// One metadata value; setting nil removes it.
    public subscript(metadataKey key: String) -> String? {
        get { metadata.first { $0.key == key }?.value }
        set {
            if let index = metadata.firstIndex(where: { $0.key == key }) {
                if let newValue { metadata[index].value = newValue } else { metadata.remove(at: index) }
            } else if let newValue {
                metadata.append((key, newValue))
            }
        }
    }

    /// This logger with one more metadata value (`logger.with("org", "acme")`).
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy[metadataKey: key] = value
        return copy
    }

    /// Whether an event at `level` would be written.
    public func logs(_ level: Level) -> Bool { level >= self.level }

    /// Logs `event` at `level` with `fields` after the metadata (a metadata key the fields name
    /// again is left to the fields).
    public func log(_ level: Level, _ event: String, _ fields: LogFields = [:]) {
        guard logs(level) else { return }
        var line = start(level)
        line.add("event", string: event)
        for (key, value) in metadata where !fields.names(key) { line.add(key, string: value) }
        for (key, value) in fields.pairs { value.write(key, to: &line) }
        sink.write(line.finished(), level: level)
    }

    /// Logs one line whose fields `build` writes after the metadata, for a hot path (one line per
    /// request) that should not build a collection first. `event` nil writes none (a request line);
    /// `build` must not repeat a metadata key.
    public func log(_ level: Level, event: String?, _ build: (inout JSONObjectWriter) -> Void) {
        guard logs(level) else { return }
        var line = start(level)
        if let event { line.add("event", string: event) }
        for (key, value) in metadata { line.add(key, string: value) }
        build(&line)
        sink.write(line.finished(), level: level)
    }

    public func trace(_ event: String, _ fields: LogFields = [:]) { log(.trace, event, fields) }
    public func debug(_ event: String, _ fields: LogFields = [:]) { log(.debug, event, fields) }
    public func info(_ event: String, _ fields: LogFields = [:]) { log(.info, event, fields) }
    public func notice(_ event: String, _ fields: LogFields = [:]) { log(.notice, event, fields) }
    public func warning(_ event: String, _ fields: LogFields = [:]) {
        log(.warning, event, fields)
    }
    public func error(_ event: String, _ fields: LogFields = [:]) { log(.error, event, fields) }
    public func critical(_ event: String, _ fields: LogFields = [:]) {
        log(.critical, event, fields)
    }

    /// Writes everything logged so far (before the process exits).
    public func flush() { sink.flush() }

    private func start(_ level: Level) -> JSONObjectWriter {
        var line = JSONObjectWriter()
        line.add("time", time: Date())
        line.add("level", string: level.name)
        return line
    }
}
