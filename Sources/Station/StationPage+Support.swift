import Foundation
import HTTPServing
import JSONText
import Logging
import Queue
import Timestamps

/// Support on the page: signing in by badge or PIN (``SupportSessions``), the name a support
/// action is recorded under, and support's work on the queue (retry, clear, park, retry-all) and
/// its station log.
extension StationPage {
    /// `POST /api/support/sign-in` with `{"badge"}` or `{"pin","name"?}`: 200
    /// `{"name","session","expiresAt"}`; 403 `support_refused` (not support's badge or PIN), 403
    /// `support_not_configured`, 429 `support_locked` after too many wrong tries. Each sign-in, and
    /// each refusal (never the badge or PIN typed), is a log line.
    func supportSignIn(_ request: HTTPRequest) throws -> SupportSignInAnswer {
        struct Body: Decodable {
            var badge: String?
            var pin: String?
            var name: String?
        }
        let body = try JSONDecoder().decode(Body.self, from: Data(request.body))
        let credential: SupportSessions.Credential
        switch (body.badge, body.pin) {
        case (let badge?, nil): credential = .badge(badge)
        case (nil, let pin?): credential = .pin(pin, name: body.name)
        default:
            throw HTTPError(status: 400, code: "bad_request", message: "send a badge or a pin, one of them")
        }
        let how = if case .badge = credential { "badge" } else { "pin" }
        let session: SupportSessions.Session
        do {
            session = try support.signIn(credential, settings: station.configuration.support)
        } catch {
            logSupport("support_sign_in_refused", how: how, by: nil, detail: error.description)
            throw error
        }
        logSupport("support_signed_in", how: how, by: session.name, detail: nil)
        return SupportSignInAnswer(
            name: session.name, session: session.token, expiresAt: Timestamp.iso8601(session.expiresAt))
    }

    /// `POST /api/support/sign-in`'s answer.
    struct SupportSignInAnswer: Encodable {
        var name: String
        var session: String
        var expiresAt: String
    }

    /// `POST /api/support/sign-out` with `{"session"}`.
    func supportSignOut(_ request: HTTPRequest) throws -> [String: String] {
        struct Body: Decodable { var session: String }
        support.signOut(try JSONDecoder().decode(Body.self, from: Data(request.body)).session)
        return [:]
    }

    /// The name of the support sign-in a request's `{"session"}` names; 403 `support_required`
    /// without one that is signed in now.
    func supportName(_ request: HTTPRequest) throws -> String {
        struct Body: Decodable { var session: String? }
        let token = (try? JSONDecoder().decode(Body.self, from: Data(request.body)))?.session
        guard let token, let name = support.name(for: token, settings: station.configuration.support) else {
            throw HTTPError(
                status: 403, code: "support_required",
                message: "sign in as support first (badge or PIN): retry, clear and park are support's")
        }
        return name
    }

    /// What support does to a dead letter from the page, or to a pending action (park).
    enum SupportAction: String, Encodable {
        case retry
        case clear
        /// Moved behind the rest of the line (or set aside as dead when a pause holds it back).
        case park
    }

    /// `POST /api/queue/{id}/retry|clear|park`'s answer: `newId` when a park moved the action behind
    /// the rest (its id changed), `dead` when it set a paused one aside.
    struct SupportAnswer: Encodable {
        var id: Int
        var done: SupportAction
        var newId: Int?
        var dead: Bool?
    }

    func queueAction(_ action: SupportAction, id text: String, _ request: HTTPRequest) throws -> SupportAnswer {
        guard let id = Int(text) else {
            throw HTTPError(status: 404, code: "not_found", message: "there is no action \(text.prefix(40))")
        }
        // Support's sign-in says who does it: the station log records a person, never "the page".
        let by = try supportName(request)
        var answer = SupportAnswer(id: id, done: action)
        do {
            switch action {
            case .retry: try station.queue.retry(id, by: by)
            case .clear: try station.queue.clear(id, by: by)
            case .park:
                switch try station.queue.park(id, by: by) {
                case .dead: answer.dead = true
                case .movedBehind(_, let newId): answer.newId = newId
                }
            }
        } catch {
            throw HTTPError(status: error == .noSuchAction(id) ? 404 : 409, code: "queue", message: error.description)
        }
        sync.poke()
        events.poke()
        return answer
    }

    /// `GET /api/log`: the station log (support's retries and clears: who, when, what), newest first.
    func stationLog() throws -> [LogRow] {
        try station.queue.log(limit: Self.logShown).map {
            LogRow(at: $0.at, event: $0.event, actionId: $0.actionId, by: $0.actor, detail: $0.detail)
        }
    }

    /// How many station log entries `GET /api/log` shows.
    static let logShown = 200

    /// One entry of the station log as the page shows it.
    struct LogRow: Encodable {
        var at: String
        var event: String
        var actionId: Int?
        var by: String?
        var detail: String
    }

    /// `POST /api/queue/retry-all` with `{"status","session"}`: every dead letter refused with that
    /// HTTP status back in line at once (after support fixed the cause), each recorded in the log
    /// under the support sign-in's name.
    func retryAll(_ request: HTTPRequest) throws -> RetryAllAnswer {
        struct Body: Decodable { var status: Int }
        let body = try JSONDecoder().decode(Body.self, from: Data(request.body))
        let by = try supportName(request)
        guard (100...599).contains(body.status) else {
            throw HTTPError(status: 400, code: "bad_request", message: "status is an HTTP status (100–599)")
        }
        let ids: [Int]
        do {
            ids = try station.queue.retryAll(refusedWith: body.status, by: by)
        } catch {
            throw HTTPError(status: 503, code: "queue", message: error.description)
        }
        sync.poke()
        events.poke()
        return RetryAllAnswer(retried: ids)
    }

    /// `POST /api/queue/retry-all`'s answer.
    struct RetryAllAnswer: Encodable {
        var retried: [Int]
    }

    private func logSupport(_ event: String, how: String, by: String?, detail: String?) {
        var fields: LogFields = ["how": .string(how)]
        if let by { fields.add("by", .string(by)) }
        if let detail { fields.add("message", .string(detail)) }
        logger.event(event, fields)
    }
}
