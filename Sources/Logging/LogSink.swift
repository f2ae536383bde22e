import Foundation
import LineLog
import Synchronization

/// The one writer of a process's log lines: each line to standard error (by a thread of its own,
/// ``LineLog``, so no caller waits for the log's reader), with the `<N>` priority prefix systemd's
/// journal reads when standard error is the journal (`JOURNAL_STREAM`).
///
///     let logger = Logger(sink: .standardError)
///     defer { logger.flush() }
public final class LogSink: Sendable {
    private let writeLine: @Sendable (String) -> Void
    private let flushLines: @Sendable () -> Void
    /// Whether lines carry the journal's priority prefix.
    public let journal: Bool

    /// Lines handed to `write` (a test's collector), with the prefix when `journal`.
    public init(
        journal: Bool = false, write: @escaping @Sendable (String) -> Void, flush: @escaping @Sendable () -> Void = {}
    ) {
        self.journal = journal
        writeLine = write
        flushLines = flush
    }

    /// Standard error, written by one thread; the journal's priorities when it is the journal.
    public static let standardError: LogSink = {
        let lines = LineLog()
        return LogSink(journal: JournalPriority.isJournal, write: { lines.write($0) }, flush: { lines.flush() })
    }()

    /// Writes nothing.
    public static let discarding = LogSink(write: { _ in })

    /// Writes one finished line (without its newline) at `level`.
    public func write(_ line: String, level: Logger.Level) {
        writeLine(journal ? "<\(level.syslogPriority)>" + line : line)
    }

    /// Waits (a few seconds at most) until every line written so far is out.
    public func flush() { flushLines() }
}
