import Foundation

/// Syslog priorities for the JSON log lines, for systemd's journal: when standard error is the
/// journal (a service started by systemd, `JOURNAL_STREAM` set), each line gets the `<N>` prefix
/// journald reads as its priority, so `journalctl -p warning -u scanpick-station` shows what needs a
/// person. The line itself stays the same JSON. One table says how serious each event is.
///
///     logWriter.write(JournalPriority.tagged(line))   // what the Logging module's one writer does
public enum JournalPriority {
    /// Whether standard error goes to systemd's journal: `JOURNAL_STREAM` ("DEVICE:INODE") names
    /// the stream systemd connected, and it must be the one standard error still is (a process
    /// started from a service inherits the variable, but its standard error may be a pipe or file).
    public static let isJournal = isJournal(
        stream: ProcessInfo.processInfo.environment["JOURNAL_STREAM"], descriptor: STDERR_FILENO)

    /// Whether `descriptor` is the journal stream `stream` ("DEVICE:INODE", decimal) names.
    static func isJournal(stream: String?, descriptor: Int32) -> Bool {
        guard let parts = stream?.split(separator: ":"), parts.count == 2,
            let device = UInt64(parts[0]), let inode = UInt64(parts[1])
        else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// `line` with its priority prefix when `journal`; unchanged otherwise.
    public static func tagged(_ line: String, journal: Bool = isJournal) -> String {
        journal ? "<\(priority(of: line))>" + line : line
    }

    /// `text` (a command's own words, perhaps several lines) with every line marked `err` when
    /// `journal`: why a unit's command failed is then what `journalctl -p warning` shows.
    public static func taggedAsError(_ text: String, journal: Bool = isJournal) -> String {
        guard journal else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "<\(error)>\($0)" }
            .joined(separator: "\n")
    }

    /// The syslog priority the table gives `event` (informational when it is not listed).
    public static func priority(ofEvent event: String) -> Int { events[event] ?? info }

    /// The syslog priority of one JSON log line: by its `event`, or for a request line by its status
    /// (a 5xx is the server's fault; a 4xx is the client's, and routine).
    static func priority(of line: String) -> Int {
        if let event = value(of: "event", in: line) { return events[event] ?? info }
        if let status = value(of: "status", in: line).flatMap(Int.init), status >= 500 { return error }
        return info
    }

    static let critical = 2
    static let error = 3
    static let warning = 4
    static let notice = 5
    static let info = 6

    /// How serious each event the services log is; an event not listed is informational.
    static let events: [String: Int] = [
        "watchdog": critical,
        "internal_error": error, "scan_failed": error, "sync_failed": error, "config_invalid": error,
        "frames_failed": error, "start_failed": error, "service_failed": error,
        "drain_lock": error, "resume_failed": error, "attention_not_stored": error, "database_failed": error,
        "restart_needed": warning, "tls_ca_not_installed": warning, "camera_not_found": warning,
        "prune_failed": warning, "refresh_failed": warning, "scanner_unavailable": warning, "scanner_lost": warning,
        "camera": warning, "log_lines_dropped": warning, "slow_transaction": warning, "warning": warning,
        "http": warning, "scanner_input_ended": warning,
        "listening": notice, "stopping": notice, "stopped": notice, "scanner_ready": notice,
        "config_reloaded": notice, "scanner_keys_refused": notice,
        "scan": info,
    ]

    /// The text or number of a top-level `"key":` in a JSON line written by JSONObjectWriter (no
    /// space after the colon); nil when absent.
    static func value(of key: String, in line: String) -> String? {
        guard let range = line.range(of: "\"\(key)\":") else { return nil }
        var rest = line[range.upperBound...]
        if rest.first == "\"" {
            rest = rest.dropFirst()
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        return String(rest.prefix { $0.isNumber })
    }
}
