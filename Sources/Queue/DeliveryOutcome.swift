import Foundation

/// What happened when an action was sent, and so what the queue does with it.
public enum DeliveryOutcome: Sendable, Equatable {
    /// 2xx: the server has it (first time, or a replay of the first time).
    case delivered(status: Int)
    /// A refusal that would refuse again tomorrow (a 4xx other than the transient ones): dead letter.
    case refused(status: Int, reason: String)
    /// Try again later: no connection, timeout, 5xx, 408, 425, 429, or 409 request_in_progress.
    case transient(status: Int?, reason: String, retryAfter: TimeInterval?)

    /// Sorts an HTTP answer by the brief's rules.
    public static func classify(status: Int, body: Data, retryAfterHeader: String?, now: Date = Date())
        -> DeliveryOutcome
    {
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        let code = object?["error"] as? String
        // The API's error shape reads better as "over_pick: picking 5 more …"; anything else as sent.
        let text =
            code.map { "\($0): \(object?["message"] as? String ?? "")" }
            ?? String(decoding: body.prefix(2000), as: UTF8.self)
        switch status {
        case 200..<300:
            return .delivered(status: status)
        case 408, 425, 429, 500..<600:
            return .transient(
                status: status, reason: text, retryAfter: retryAfterHeader.flatMap { parseRetryAfter($0, now: now) })
        case 409 where code == "request_in_progress":
            return .transient(
                status: status, reason: text, retryAfter: retryAfterHeader.flatMap { parseRetryAfter($0, now: now) })
        default:
            return .refused(status: status, reason: text)
        }
    }

    /// `Retry-After` as seconds: a number of seconds or an HTTP date.
    static func parseRetryAfter(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }
}
