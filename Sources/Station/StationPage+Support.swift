import Foundation
import HTTPServing
import JSONText
import Logging
import Timestamps

/// Support on the page: signing in by badge or PIN (``SupportSessions``), and the name a support
/// action is recorded under.
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
            log(Self.supportLine("support_sign_in_refused", how: how, by: nil, detail: error.description))
            throw error
        }
        log(Self.supportLine("support_signed_in", how: how, by: session.name, detail: nil))
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

    private static func supportLine(_ event: String, how: String, by: String?, detail: String?) -> String {
        var line = JSONObjectWriter()
        line.add("time", time: Date())
        line.add("level", string: Logger.Level(event: event).name)
        line.add("event", string: event)
        line.add("how", string: how)
        if let by { line.add("by", string: by) }
        if let detail { line.add("message", string: detail) }
        return line.finished()
    }
}
