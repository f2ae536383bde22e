import Foundation
import Timestamps
import Wire

/// What happened when an action was sent, and so what the queue does with it.
public enum DeliveryOutcome: Sendable, Equatable {
    /// A 2xx JSON answer echoing the action's key: the server has it (first time, or a replay).
    case delivered(status: Int)
    /// A refusal that would refuse again tomorrow (a 4xx in the API's error shape, other than the
    /// transient ones): dead letter.
    case refused(status: Int, reason: String)
    /// Try again later: no connection, timeout, 5xx, 408, 425, 429, or 409 request_in_progress.
    case transient(status: Int?, reason: String, retryAfter: TimeInterval?)
    /// The server refused the station itself, not this action: its token (401, 403), its base URL
    /// (a 404 for a route that does not exist, a 405, a redirect, an answer that is not the API's),
    /// TLS, or no token configured. The whole queue pauses with the action untouched, and a person
    /// is told what to fix.
    case paused(Attention, status: Int?)

    /// Whether a pause concerns only the action's organisation (its token was refused, or it has
    /// none configured), not the whole station.
    var concernsOneOrganisation: Bool {
        guard case .paused(let attention, _) = self else { return false }
        return Attention.organisationCodes.contains(attention.code)
    }

    /// Whether the server took or judged the action itself (so it accepts the station again).
    var reachedTheServer: Bool {
        switch self {
        case .delivered, .refused: true
        case .transient, .paused: false
        }
    }

    /// Sorts an HTTP answer (the rules below and in docs/station.md). `headers` are the answer's, names in lower case;
    /// `sentKey` is the action's idempotency key; `org` and `server` make a pause's message concrete.
    ///
    /// Only the API's own answers count: a 2xx is delivered only when it is JSON and echoes
    /// `sentKey` in its `Idempotency-Key` header (a captive portal's or another program's `200
    /// <html>` took nothing), and a 4xx is the action's refusal only in the API's error shape
    /// (`{"error": code, …}`). Anything else — a redirect, a 405, a page from something that is not
    /// the API — is the station's address at fault: the queue pauses and nothing goes dead or sent.
    public static func classify(
        status: Int, headers: [String: String], body: Data, sentKey: String, org: String = "this organisation",
        server: URL? = nil, now: Date = Date()
    ) -> DeliveryOutcome {
        let isJSON = headers["content-type"].map(isJSONMediaType) ?? false
        let object = isJSON ? (try? JSONSerialization.jsonObject(with: body)) : nil
        let code = (object as? [String: Any])?["error"] as? String
        let message = (object as? [String: Any])?["message"] as? String
        // The API's error shape reads better as "over_pick: picking 5 more …"; anything else as sent.
        let text =
            code.map { "\($0): \(message ?? "")" }
            ?? String(decoding: body.prefix(2000), as: UTF8.self)
        let at = server.map { "the server at \(ServerURL.redacted($0))" } ?? "the server"
        let waits = "the queue waits, nothing is lost, and it resumes when the config is fixed"
        let retryAfter = headers["retry-after"].flatMap { parseRetryAfter($0, now: now) }
        func notTheAPI(_ why: String) -> DeliveryOutcome {
            .paused(
                Attention(
                    code: "not_the_api",
                    message:
                        "\(at) answered \(status) but not as the ScanPick API (\(why)): check `server` in the station config (a captive portal, a proxy or another web application may answer there, or the server is older than this station); the action was not counted as sent and is sent again under its key; \(waits)"
                ), status: status)
        }
        switch status {
        case 200..<300:
            guard object != nil else { return notTheAPI("its answer is not JSON") }
            guard let echoed = headers["idempotency-key"] else {
                return notTheAPI("it did not echo the action's Idempotency-Key")
            }
            guard echoed == sentKey else { return notTheAPI("it echoed another Idempotency-Key") }
            return .delivered(status: status)
        case 300..<400:
            let target = headers["location"].map { " to \($0)" } ?? ""
            return .paused(
                Attention(
                    code: "redirected",
                    message:
                        "\(at) redirected the request (\(status)\(target)); the station does not follow redirects: check `server` in the station config (its scheme, http or https, its host and its path); \(waits)"
                ), status: status)
        case 401:
            return .paused(
                Attention(
                    code: "unauthorized",
                    message:
                        "the server refused this station's token for \(org) (401): fix organisations.\(org)'s token in the station config\(server.map { " (server: \(ServerURL.redacted($0)))" } ?? ""); \(waits)"
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
        case 405:
            // The station only POSTs to the API's POST routes: whatever refuses the method is not it.
            return .paused(
                Attention(
                    code: "method_not_allowed",
                    message:
                        "\(at) does not take this request's method (405): check `server` in the station config; \(waits)"
                ), status: status)
        case 408, 425, 429, 500..<600:
            return .transient(status: status, reason: text, retryAfter: retryAfter)
        case 409 where code == "request_in_progress":
            return .transient(status: status, reason: text, retryAfter: retryAfter)
        case 400 where code == "invalid_field" && message?.hasPrefix("workerId ") == true:
            // The worker id comes from the station's config, not from the action.
            return .paused(
                Attention(
                    code: "invalid_worker",
                    message:
                        "\(at) refused this station's worker id (\(message ?? "")): fix `worker` in the station config; \(waits)"
                ), status: status)
        case 422 where code == "clock_skew":
            // The station's clock, not the action: every action would be judged on it.
            return .paused(
                Attention(
                    code: "clock_skew",
                    message:
                        "\(at) says this station's clock is wrong (\(message ?? "")): set this station's clock (NTP: `timedatectl set-ntp true`); the queue waits, nothing is lost, and it looks again every backoff cap"
                ), status: status)
        case 400..<500 where code != nil:
            return .refused(status: status, reason: text)
        case 400..<500:
            return notTheAPI("its refusal is not in the API's error shape")
        default:
            return notTheAPI("the status is not one the API answers")
        }
    }

    /// Whether a `Content-Type` value names JSON (`application/json`, `…+json`, parameters allowed).
    static func isJSONMediaType(_ value: String) -> Bool {
        let type = value.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    /// `Retry-After` as seconds: a number of seconds or an HTTP date, at most ``maxRetryAfter``
    /// (a proxy's `Retry-After: 1e300` or `inf` must not park the queue for good, or overflow a timer).
    static func parseRetryAfter(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds >= 0, !seconds.isNaN { return min(seconds, maxRetryAfter) }
        return Timestamp.httpDate(trimmed).map { min(max(0, $0.timeIntervalSince(now)), maxRetryAfter) }
    }

    /// The longest `Retry-After` the station honours: an hour.
    static let maxRetryAfter: TimeInterval = 3600
}
