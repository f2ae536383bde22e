import Foundation
import Timestamps

/// What happened when an action was sent, and so what the queue does with it.
public enum DeliveryOutcome: Sendable, Equatable {
    /// 2xx: the server has it (first time, or a replay of the first time).
    case delivered(status: Int)
    /// A refusal that would refuse again tomorrow (a 4xx other than the transient ones): dead letter.
    case refused(status: Int, reason: String)
    /// Try again later: no connection, timeout, 5xx, 408, 425, 429, or 409 request_in_progress.
    case transient(status: Int?, reason: String, retryAfter: TimeInterval?)
    /// The server refused the station itself, not this action: its token (401, 403), its base URL
    /// (a 404 for a route that does not exist), TLS, or no token configured. The whole queue pauses
    /// with the action untouched, and a person is told what to fix.
    case paused(Attention, status: Int?)

    /// Whether the server took or judged the action itself (so it accepts the station again).
    var reachedTheServer: Bool {
        switch self {
        case .delivered, .refused: true
        case .transient, .paused: false
        }
    }

    /// Sorts an HTTP answer: delivered (2xx), transient (a transport failure, 5xx, 408, 425, 429, a 409
    /// for a key still in flight: retried for ever), paused (a refusal of the station itself: 401,
    /// 403, a 404 for a route that does not exist), or refused (any other 4xx: this action's fault,
    /// parked as a dead letter). `org` and `server` make a pause's message concrete.
    public static func classify(
        status: Int, body: Data, retryAfterHeader: String?, org: String = "this organisation",
        server: URL? = nil, now: Date = Date()
    ) -> DeliveryOutcome {
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        let code = object?["error"] as? String
        // The API's error shape reads better as "over_pick: picking 5 more …"; anything else as sent.
        let text =
            code.map { "\($0): \(object?["message"] as? String ?? "")" }
            ?? String(decoding: body.prefix(2000), as: UTF8.self)
        let at = server.map { "the server at \($0)" } ?? "the server"
        let waits = "the queue waits, nothing is lost, and it resumes when the config is fixed"
        switch status {
        case 200..<300:
            return .delivered(status: status)
        case 401:
            return .paused(
                Attention(
                    code: "unauthorized",
                    message:
                        "\(at) refused this station's token for \(org) (401): fix organisations.\(org)'s token in the station config; \(waits)"
                ), status: status)
        case 403:
            return .paused(
                Attention(
                    code: "forbidden",
                    message:
                        "\(at) forbids this station's requests for \(org) (403): check organisations.\(org)'s token and the server's access rules; \(waits)"
                ), status: status)
        case 404 where code != "not_found":
            // The API's own 404 for a missing resource says `not_found`; anything else (its
            // `no_such_route`, a proxy's page, another program) means the base URL is wrong.
            return .paused(
                Attention(
                    code: "no_such_route",
                    message: "\(at) has no such route (404): check `server` in the station config; \(waits)"),
                status: status)
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
        return Timestamp.httpDate(trimmed).map { max(0, $0.timeIntervalSince(now)) }
    }
}
