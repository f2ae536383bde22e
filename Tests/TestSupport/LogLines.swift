import Foundation

/// A process's log as its JSON lines: each line of standard error parsed as one JSON object (after
/// the journal's `<N>` priority prefix, when it has one). A line that is not JSON is kept as text
/// in ``notJSON``, so a test can require that there is none.
///
///     let log = LogLines(run.standardError)
///     #expect(log.notJSON.isEmpty)
///     #expect(log.messages(of: "start_failed").contains { $0.contains("\"listen\"") })
public struct LogLines {
    /// Each JSON line, parsed, with its priority prefix (nil when it had none).
    public var objects: [(priority: Int?, object: [String: Any])] = []
    /// The lines that are not one JSON object.
    public var notJSON: [String] = []

    public init(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            var body = Substring(line)
            var priority: Int?
            if body.hasPrefix("<"), let close = body.firstIndex(of: ">"),
                let number = Int(body[body.index(after: body.startIndex)..<close])
            {
                priority = number
                body = body[body.index(after: close)...]
            }
            if let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] {
                objects.append((priority, object))
            } else {
                notJSON.append(line)
            }
        }
    }

    /// The lines of `event`.
    public func lines(of event: String) -> [[String: Any]] {
        objects.map(\.object).filter { $0["event"] as? String == event }
    }

    /// The `message` (or `error`) of each line of `event`.
    public func messages(of event: String) -> [String] {
        lines(of: event).compactMap { ($0["message"] ?? $0["error"]) as? String }
    }

    /// Lines without a `time` or a `level` (each should have both).
    public var withoutTimeOrLevel: [[String: Any]] {
        objects.map(\.object).filter { !($0["time"] is String) || !($0["level"] is String) }
    }
}
