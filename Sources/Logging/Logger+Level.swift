import LineLog

extension Logger {
    /// How serious an event is: swift-log's seven levels, each with the syslog priority systemd's
    /// journal files it under (`journalctl -p warning` shows `warning` and worse).
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        /// The name written as a line's `level`.
        public var name: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        /// The syslog priority (`<N>` before a line in the journal): crit 2 … debug 7.
        public var syslogPriority: Int {
            switch self {
            case .trace, .debug: 7
            case .info: 6
            case .notice: 5
            case .warning: 4
            case .error: 3
            case .critical: 2
            }
        }

        /// The level a name (as written in a line) stands for.
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        /// The level the journal's table of events (``JournalPriority``) gives `event`: what a line
        /// built by hand, not by a ``Logger``, carries as its `level` (`Logger.Level(event: "scan").name`).
        public init(event: String) {
            let priority = JournalPriority.priority(ofEvent: event)
            self = Self.allCases.last { $0.syslogPriority == priority } ?? .info
        }

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}

extension Logger {
    /// Logs `event` at the level the journal's table of events gives it (``Level/init(event:)``):
    /// for a part whose events' seriousness is declared once, in that table.
    ///
    ///     logger.event("scanner_lost", ["message": "unplugged; looking for it again"])  // warning
    public func event(_ event: String, _ fields: LogFields = [:]) { log(Level(event: event), event, fields) }
}
