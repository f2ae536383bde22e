import Foundation

/// ISO 8601 UTC timestamps with milliseconds (`2026-11-30T10:00:00.123Z`), formatted by hand: this
/// runs on every request and every queued action, where Foundation's formatters cost microseconds.
public enum Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func iso8601(_ date: Date = Date()) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(24)
        append(Int(parts.tm_year) + 1900, digits: 4, to: &text)
        text += "-"
        append(Int(parts.tm_mon) + 1, digits: 2, to: &text)
        text += "-"
        append(Int(parts.tm_mday), digits: 2, to: &text)
        text += "T"
        append(Int(parts.tm_hour), digits: 2, to: &text)
        text += ":"
        append(Int(parts.tm_min), digits: 2, to: &text)
        text += ":"
        append(Int(parts.tm_sec), digits: 2, to: &text)
        text += "."
        append(Int(milliseconds % 1000), digits: 3, to: &text)
        text += "Z"
        return text
    }

    /// Appends `value` zero-padded to `digits`.
    static func append(_ value: Int, digits: Int, to text: inout String) {
        let decimal = String(value)
        if decimal.count < digits { text += String(repeating: "0", count: digits - decimal.count) }
        text += decimal
    }

    /// Reads an ISO 8601 time with a zone (`2026-11-30T10:00:00Z`, `…:00.123Z`, `…:00+01:00`), or nil.
    public static func date(_ text: String) -> Date? {
        guard text.utf8.count <= 40 else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
