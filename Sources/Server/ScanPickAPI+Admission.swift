import Digest
import Foundation
import HTTPServing
import Wire

/// Admission: what a request's head alone decides (a repeated credential, the station's name, the
/// token and its organisation, the route, a declared body too large), before its body is read.
extension ScanPickAPI {
    /// Refuses a request from its head alone — a repeated credential, a missing or wrong token, an
    /// unknown route or method — before the server reads any of its body; nil lets it through. The
    /// HTTP server calls it on a polling thread.
    /// A head let through carries its route and organisation on to ``route(_:)``.
    public func checkHead(_ head: inout HTTPRequest) -> HTTPResponse? {
        let start = ContinuousClock.now
        do {
            let (route, organisation) = try admitHead(head)
            head.admission = Admission(route: route, organisation: organisation, of: head, by: self)
            return nil
        } catch {
            return finish(head, error.response, organisation: nil, route: nil, since: start)
        }
    }

    /// Headers a request may send only once (lower-cased name, and as people write it).
    private static let singleHeaders = [
        ("authorization", "Authorization"), ("idempotency-key", "Idempotency-Key"),
        ("x-scanpick-station", StationIdentity.header), (IdempotencyHorizon.clockHeader, "X-ScanPick-Clock"),
    ]

    /// A request's route and organisation, as ``checkHead(_:)`` found them from its head, with
    /// everything of the head they were found from: they are reused only for that same head, by the
    /// same API, so a head changed on its way to the router (or an admission from another API) is
    /// checked again.
    private struct Admission: Sendable {
        let route: Route
        let organisation: String?
        private let api: ObjectIdentifier
        /// What ``admitHead(_:)`` reads of a head.
        private let method: String
        private let path: String
        private let headers: [String: String]
        private let repeatedHeaders: Set<String>

        init(route: Route, organisation: String?, of head: HTTPRequest, by api: ScanPickAPI) {
            self.route = route
            self.organisation = organisation
            self.api = ObjectIdentifier(api)
            (method, path, headers, repeatedHeaders) = (head.method, head.path, head.headers, head.repeatedHeaders)
        }

        func admits(_ request: HTTPRequest, by api: ScanPickAPI) -> Bool {
            self.api == ObjectIdentifier(api) && method == request.method && path == request.path
                && headers == request.headers && repeatedHeaders == request.repeatedHeaders
        }
    }

    /// Checks a whole request: its head (unless ``checkHead(_:)`` already let this very head
    /// through), then what depends on its body.
    func admit(_ request: HTTPRequest) throws(APIError) -> (Route, String?) {
        let (route, organisation) =
            if let admission = request.admission as? Admission, admission.admits(request, by: self) {
                (admission.route, admission.organisation)
            } else {
                try admitHead(request)
            }
        if route == .heartbeat, request.body.count > StationHeartbeat.maxBodyBytes {
            throw APIError.heartbeatTooLarge
        }
        if route == .fleetSignIn, request.body.count > Self.maxSignInBytes { throw APIError.signInTooLarge }
        return (route, organisation)
    }

    /// What a request's head alone decides: a repeated credential, a bad station name, a missing or
    /// wrong token (every `/api/` path needs one, so strangers learn nothing about routes), an
    /// unknown route or method, a declared body too large for its route. Returns the route and the
    /// token's organisation.
    func admitHead(_ request: HTTPRequest) throws(APIError) -> (Route, String?) {
        for (name, shown) in Self.singleHeaders where request.repeatedHeaders.contains(name) {
            throw APIError.duplicateHeader(shown)
        }
        if let station = request.header(StationIdentity.header), !StationIdentity.isValid(station) {
            throw APIError.invalidStation
        }
        var organisation: String?
        let isAPI = request.path.hasPrefix("/api/") || request.path == "/api"
        // The fleet page's cookie instead of a token: found on a worker, for the routes it may open.
        let bySession = isAPI && Self.offersFleetSession(request)
        if isAPI, !bySession {
            do {
                organisation = try authenticate(request)
            } catch {
                // A station with a wrong token: remembered, so the fleet view can say why it is silent.
                if request.header("authorization") != nil, let station = request.header(StationIdentity.header) {
                    refusedTokens.note(station, at: Date())
                }
                throw error
            }
        }
        let route: Route
        do {
            route = try Route.match(method: request.method, path: request.path)
        } catch {
            throw bySession ? APIError.unauthorized : error  // strangers learn nothing of routes
        }
        switch route {
        case .metrics:
            guard metricsOnMainListener else { throw HTTPError.noSuchRoute(request.path) }
            try metricsAccess.check(request)
        case .heartbeat:
            // Checked from the head, before a byte of the body is read; `admit` checks the body itself.
            let declared = request.header("content-length").map { Int($0) ?? Int.max } ?? 0
            if declared > StationHeartbeat.maxBodyBytes { throw APIError.heartbeatTooLarge }
        case .fleetSignIn:
            // Anyone may sign in, so a stranger's body is bounded before it is read.
            let declared = request.header("content-length").map { Int($0) ?? Int.max } ?? 0
            if declared > Self.maxSignInBytes { throw APIError.signInTooLarge }
        default:
            break
        }
        if route.needsOrganisation, organisation == nil, !(bySession && route.acceptsFleetSession) {
            throw APIError.unauthorized
        }
        return (route, organisation)
    }

    /// The organisation whose token has SHA-256 `hash`, if the config has it.
    func organisation(forTokenHash hash: String) -> String? { organisationByTokenHash[hash] }

    private func authenticate(_ request: HTTPRequest) throws(APIError) -> String {
        guard let header = request.header("authorization"), Self.isBearer(header) else {
            throw APIError.unauthorized
        }
        let token = header.dropFirst("bearer ".count).drop { $0 == " " }
        guard !token.isEmpty, let org = organisationByTokenHash[SHA256.hex(of: String(token))] else {
            throw APIError.unauthorized
        }
        return org
    }

    /// Whether `header` starts with the scheme `Bearer ` in any case (compared byte by byte: the
    /// whole header is not lowercased for it on every request).
    private static func isBearer(_ header: String) -> Bool {
        let scheme = "bearer ".utf8
        return header.utf8.count > scheme.count
            && zip(header.utf8, scheme).allSatisfy { byte, expected in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 == expected : byte == expected
            }
    }
}
