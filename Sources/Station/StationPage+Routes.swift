import ConfigFile
import Foundation
import HTTPServing
import Queue
import SQLiteStorage
import Storage
import Wire

/// The page's routes: the table, the dispatch of each request to the part that answers it, and the
/// answer every failure gets.
extension StationPage {
    /// The page's routes: its files, the login link, and the JSON API.
    enum Route: Equatable, Sendable {
        case file(String)
        case login
        case status
        case pickList
        case queue
        case tap
        case retry(id: String)
        case clear(id: String)
        case park(id: String)
        case supportSignIn
        case supportSignOut
        case acknowledgeRefusal(id: String)
        case scan
        case metrics
        case retryAll
        case stationLog
        case events
        case batches
        case organisations
        case openBatch(id: String)
        case closeBatch(id: String)
        case workers
        case signIn
        case signOut
        case previewFeed
        case previewSnapshot
        case helpState
        case callHelp
        case cancelHelp

        /// The page's files (``StationPage/fileNames``), then the login link and the JSON API.
        static let table = RouteTable<Route>(
            fileNames.map { name -> Spec in
                let path = servedPath(name)
                return ("GET", path, { _ in .file(path) })
            } + others)

        /// A route as ``RouteTable`` takes it.
        typealias Spec = (method: String, path: String, make: @Sendable ([String]) -> Route)

        /// The routes other than the page's files.
        private static let others: [Spec] = [
            ("GET", "/login", { _ in .login }),
            ("GET", "/api/status", { _ in .status }),
            ("GET", "/api/pick-list", { _ in .pickList }),
            ("GET", "/api/queue", { _ in .queue }),
            ("POST", "/api/taps", { _ in .tap }),
            ("POST", "/api/queue/{}/retry", { .retry(id: $0[0]) }),
            ("POST", "/api/queue/{}/clear", { .clear(id: $0[0]) }),
            ("POST", "/api/queue/{}/park", { .park(id: $0[0]) }),
            ("POST", "/api/support/sign-in", { _ in .supportSignIn }),
            ("POST", "/api/support/sign-out", { _ in .supportSignOut }),
            ("POST", "/api/refusals/{}/acknowledge", { .acknowledgeRefusal(id: $0[0]) }),
            ("POST", "/api/scans", { _ in .scan }),
            ("GET", "/metrics", { _ in .metrics }),
            ("POST", "/api/queue/retry-all", { _ in .retryAll }),
            ("GET", "/api/log", { _ in .stationLog }),
            ("GET", "/api/events", { _ in .events }),
            ("GET", "/api/batches", { _ in .batches }),
            ("GET", "/api/organisations", { _ in .organisations }),
            ("POST", "/api/batches/{}/open", { .openBatch(id: $0[0]) }),
            ("POST", "/api/batches/{}/close", { .closeBatch(id: $0[0]) }),
            ("GET", "/api/workers", { _ in .workers }),
            ("POST", "/api/sign-in", { _ in .signIn }),
            ("POST", "/api/sign-out", { _ in .signOut }),
            ("GET", "/api/preview.mjpeg", { _ in .previewFeed }),
            ("GET", "/api/preview.jpg", { _ in .previewSnapshot }),
            ("GET", "/api/help", { _ in .helpState }),
            ("POST", "/api/help", { _ in .callHelp }),
            ("POST", "/api/help/cancel", { _ in .cancelHelp }),
        ]
    }

    /// How a request is answered, decided on a polling thread (nothing here blocks): a route that
    /// calls the server answers from a task once the server has (no worker waits for it); every
    /// other route on one of the page's workers.
    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        switch try? Route.table.match(method: request.method, path: request.path) {
        case .batches?, .openBatch?:
            .later { [self] responder in Task { responder.respond(await answerCallingServer(request)) } }
        default:
            .onWorker { [self] in handle(request) }
        }
    }

    /// The route of a request the page lets in (its access rules; a change must be JSON, each key
    /// given once), or what refuses it.
    func admittedRoute(_ request: HTTPRequest) throws -> Route {
        let access = self.access.withLock { $0 }
        try access.check(request)
        let route = try Route.table.match(method: request.method, path: request.path)
        if request.method == "POST" {
            try requireJSON(request)
            try Self.refuseRepeatedKeys(request.body)
        }
        return route
    }

    /// Answers a request on a worker: every route but those that call the server (``answer(_:)``).
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let route = try admittedRoute(request)
            switch route {
            case .login:
                return access.withLock { $0 }.login(request)
            case .file(let path):
                guard let file = files[path] else { throw HTTPError.noSuchRoute(path) }
                return HTTPResponse(
                    status: 200, headers: [("Content-Type", file.type), ("Cache-Control", "no-store")], body: file.bytes
                )
            case .status:
                return json(200, try statusJSON())
            case .pickList:
                return json(200, try StationJSON.pickList(station))
            case .queue:
                // Polled every second or so: bounded, whatever the queue and its sent history hold.
                let actions = try station.queue.recentActions(
                    unsentLimit: Self.queueUnsentShown, sentLimit: Self.queueSentShown)
                return json(200, try StationJSON.queue(actions))
            case .tap:
                return try json(200, Self.encode(try tap(request)))
            case .retry(let id):
                return try json(200, Self.encode(try queueAction(.retry, id: id, request)))
            case .clear(let id):
                return try json(200, Self.encode(try queueAction(.clear, id: id, request)))
            case .park(let id):
                return try json(200, Self.encode(try queueAction(.park, id: id, request)))
            case .supportSignIn:
                return try json(200, Self.encode(try supportSignIn(request)))
            case .supportSignOut:
                return try json(200, Self.encode(try supportSignOut(request)))
            case .acknowledgeRefusal(let id):
                return json(200, try acknowledgeRefusal(id))
            case .scan:
                return try json(200, Self.encode(try scan(request)))
            case .metrics:
                guard let text = metricsText.withLock({ $0 }) else { throw HTTPError.noSuchRoute(request.path) }
                return HTTPResponse(
                    status: 200,
                    headers: [("Content-Type", StationMetrics.contentType), ("Cache-Control", "no-store")],
                    body: text())
            case .retryAll:
                return try json(200, Self.encode(try retryAll(request)))
            case .stationLog:
                return try json(200, Self.encode(try stationLog()))
            case .events:
                guard let stream = events.subscribe() else {
                    throw HTTPError(
                        status: 503, code: "too_many_listeners",
                        message: "\(PageEvents.maxClients) pages already listen to this station; poll instead")
                }
                return .stream(
                    200,
                    headers: [
                        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                        ("X-Accel-Buffering", "no"),
                    ], stream)
            case .batches, .openBatch:
                throw HTTPError(status: 500, code: "internal", message: "the page answers this route from a task")
            case .organisations:
                return try json(200, Self.encode(Organisations(organisations: organisationNames())))
            case .closeBatch(let id):
                return json(200, try closeBatch(id, request))
            case .workers:
                return json(200, try workersJSON())
            case .signIn:
                return json(200, try signIn(request))
            case .signOut:
                return json(200, try signOut())
            case .previewFeed:
                return .stream(
                    200,
                    headers: [
                        ("Content-Type", "multipart/x-mixed-replace; boundary=\(PreviewFeed.boundary)"),
                        ("Cache-Control", "no-store"),
                    ], try preview.subscribe())
            case .previewSnapshot:
                guard let jpeg = preview.snapshot() else { throw PreviewFeed.noFrame }
                return HTTPResponse(
                    status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "no-store")], body: jpeg)
            case .helpState, .callHelp, .cancelHelp:
                return json(200, try help(route))
            }
        } catch {
            return Self.refusal(error, request)
        }
    }

    /// The answer a failure gets (``httpError(_:body:)``), never cached.
    static func refusal(_ error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        var response = httpError(error, body: request.body).response
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// Every failure as the answer it gets: the page's own refusals as they are, a request that
    /// does not parse 400, and a fault of the station itself (its database, anything unforeseen)
    /// a 5xx: the request was fine and nothing was done.
    static func httpError(_ error: any Error, body: [UInt8] = []) -> HTTPError {
        switch error {
        case let refusal as HTTPError: refusal
        case let refusal as TapRefusal:
            HTTPError(status: refusal.status, code: refusal.code, message: refusal.pickerMessage)
        case let refusal as SupportRefusal:
            HTTPError(status: refusal.status, code: refusal.code, message: refusal.description)
        case let refusal as PickerRefusalError:
            HTTPError(status: 404, code: "no_such_refusal", message: refusal.description)
        case let refusal as OrganisationError:
            HTTPError(status: 400, code: "which_organisation", message: "\(refusal): choose one")
        case let refusal as BatchOpeningError:
            HTTPError(status: 503, code: "server_needed", message: refusal.description)
        case let refusal as FetchError:
            switch refusal {
            case .noToken: HTTPError(status: 400, code: "no_token", message: refusal.description)
            case .unreachable: HTTPError(status: 503, code: "server_unreachable", message: refusal.description)
            case .untrustedAnswer:
                HTTPError(status: 502, code: "server_answer_refused", message: refusal.description)
            case .refused(let status, _):
                HTTPError(
                    status: (400..<500).contains(status) ? status : 502, code: "server_refused",
                    message: refusal.description)
            }
        case let refusal as FieldError:
            HTTPError(status: 400, code: "invalid_field", message: "\(refusal.field) \(refusal.problem)")
        case let refusal as DecodingError:
            HTTPError(status: 400, code: "bad_request", message: JSONDecodingProblem.describe(refusal, body: body))
        case SQLiteError.fileGone:
            HTTPError(
                status: 503, code: "database_gone",
                message:
                    "not saved: the station's queue file was removed while it ran, so nothing more can be kept; call support (what was saved before is kept)"
            )
        case is SQLiteError, is StorageError:
            HTTPError(
                status: 503, code: "storage", message: "the station could not use its database (\(error)); try again")
        default:
            HTTPError(
                status: 500, code: "internal", message: "the station failed to answer (\(error)); nothing was done")
        }
    }

    /// Changes come as JSON only: a form or text body from another page would need a preflight
    /// no one answers.
    private func requireJSON(_ request: HTTPRequest) throws(HTTPError) {
        guard request.header("content-type")?.hasPrefix("application/json") == true else {
            throw HTTPError(status: 415, code: "json_required", message: "send Content-Type: application/json")
        }
    }

    /// A key given twice (however it is escaped) is refused, as the server refuses it: one value
    /// is never kept on a guess.
    private static func refuseRepeatedKeys(_ body: [UInt8]) throws(FieldError) {
        guard !body.isEmpty, let repeated = JSONSyntax.repeatedKey(in: body) else { return }
        throw FieldError(field: String(repeated.path.prefix(100)), problem: "is given twice: send each field once")
    }

    /// A response body in the API's JSON form (keys sorted, as the command line's `--json` prints).
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func json(_ status: Int, _ text: String) -> HTTPResponse {
        .json(status, Array(text.utf8), headers: [("Cache-Control", "no-store")])
    }
}
