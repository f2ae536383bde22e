import ConfigFile
import Foundation
import HTTPServing
import Queue
import SQLiteStorage
import Storage
import Synchronization
import Timestamps
import Wire

/// The station's local page and JSON API: what the picker's screen (or a kiosk, or a handheld) uses.
/// The API has the command line's `--json` shapes. Taps answer once durable, never waiting for the
/// server. ``PageAccess`` decides who may use it (the `Host` and `Origin` rules against DNS
/// rebinding and other sites, and the secret when the page serves the network); support's retry
/// and clear name who did them. Changes are pushed to the page as they happen (``PageEvents``,
/// `GET /api/events`); the polled routes stay for a browser whose event stream fails.
///
///     let page = try StationPage(station: station, sync: sync, attention: board, settings: config.page)
public final class StationPage: Sendable {
    let station: PickStation
    let sync: SyncService
    let attention: AttentionBoard
    /// The event streams (`GET /api/events`).
    let events: PageEvents
    /// The camera's live view (`GET /api/preview.mjpeg`, `GET /api/preview.jpg`).
    let preview = PreviewFeed()
    /// Numbers the scan outcomes shown, so a page plays each one once; it starts from the time in
    /// milliseconds, so a restarted station's numbers still follow the ones a page has seen.
    private let scanSequence = Mutex(Int(Date().timeIntervalSince1970 * 1000))
    /// How many of the page's routes are waiting for the server now (bounded).
    let serverCalls = Mutex(0)
    private let server: Mutex<HTTPServer?> = Mutex(nil)
    private let lastScan = Mutex<StationJSON.LastScan?>(nil)
    private let scanner = Mutex<String?>(nil)
    private let files: [String: (type: String, bytes: [UInt8])]
    /// Who may use the page; replaced whole when the config's page settings change.
    private let access: Mutex<PageAccess>
    /// Makes `GET /metrics`'s text (see ``serveMetrics(_:)``).
    private let metricsText = Mutex<(@Sendable () -> [UInt8])?>(nil)
    /// What takes a code typed into the page as a scan (``takeScans(_:)``).
    private let scanHandler = Mutex<(@Sendable (String) -> ScanAnswer?)?>(nil)
    /// Who is signed in as support (retry, clear and park need it).
    let support = SupportSessions()
    /// The station's JSON log lines (support's sign-ins).
    let log: @Sendable (String) -> Void

    /// The address the page listens on (port 0 resolved).
    public let address: ListenAddress

    /// `attention` holds what the running station noticed (shown with the queue's pause in the pill);
    /// `log` takes the page's JSON log lines.
    public init(
        station: PickStation, sync: SyncService, attention: AttentionBoard,
        settings: StationConfiguration.PageSettings, log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.station = station
        self.log = log
        self.sync = sync
        self.attention = attention
        var files: [String: (String, [UInt8])] = [:]
        for (name, type) in [
            ("index.html", "text/html; charset=utf-8"), ("page.css", "text/css"), ("page.js", "text/javascript"),
            ("help.js", "text/javascript"),
        ] {
            guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Page"),
                let data = FileManager.default.contents(atPath: url.path)
            else { throw StationPageError.missingFile(name) }
            files[name == "index.html" ? "/" : "/" + name] = (type, [UInt8](data))
        }
        self.files = files
        let box = Handler()
        events = PageEvents {
            guard let page = box.page else { throw HTTPError(status: 503, code: "starting", message: "starting") }
            return try page.snapshot()
        }
        let server = try HTTPServer(listen: settings.listen, limits: Self.limits) {
            box.page?.handle($0) ?? .json(503, [])
        }
        address = server.address
        access = Mutex(PageAccess(settings: settings, port: server.address.port))
        self.server.withLock { $0 = server }
        box.set(self)
        events.start()
    }

    public func stop() {
        events.stop()
        preview.stop()
        server.withLock { $0?.stop() }
    }

    /// Something the page shows may have changed (a drain pass, a batch opened elsewhere): pushed
    /// to the page's event streams now.
    public func poke() { events.poke() }

    /// `GET /api/queue` shows at most this many unsent (pending, in flight, dead) actions, the
    /// oldest, and this many sent ones, the newest (`scanpick queue` shows them all).
    static let queueUnsentShown = 1000
    static let queueSentShown = 50

    /// One picker's page: small bodies, a few hundred connections, a few workers (taps are quick).
    static let limits = {
        var limits = HTTPServerLimits()
        limits.maxBodyBytes = 64 << 10
        limits.connectionLimit = 512
        limits.workerThreads = 4
        limits.bulkWorkerThreads = 1
        return limits
    }()

    /// A fresh one-time login link's path and query (`/login?code=…`) when the page needs its
    /// secret; any earlier unused link stops working.
    public func newLoginLink() -> String? { access.withLock { $0 }.newLoginPath() }

    /// The page's address as a browser should open it: its listen address, or for a wildcard one
    /// (`0.0.0.0`, `::`, which no browser may name: the page would answer 421) the first of
    /// `page.allowedHosts`, else this machine's loopback.
    public var url: String { access.withLock { $0 }.url }

    /// Applies re-read page settings on the same address: a rotated secret replaces the old one at
    /// once (its sessions and bearer stop working, unused login links too), and so do the allowed
    /// hosts. Event streams opened under the old rules are ended: they would go on showing every
    /// scan and sign-in to whoever opened them. Settings that admit alike keep the sessions.
    public func apply(_ settings: StationConfiguration.PageSettings) {
        let port = address.port
        let changed = access.withLock { access in
            guard !access.admitsAlike(settings) else { return false }
            access = PageAccess(settings: settings, port: port)
            return true
        }
        if changed { events.endStreams() }
    }

    /// Serves `GET /metrics` (Prometheus's text format, under the page's access rules) with what
    /// `text` makes.
    public func serveMetrics(_ text: @escaping @Sendable () -> [UInt8]) {
        metricsText.withLock { $0 = text }
    }

    /// `POST /api/scans`'s answer: how the scan went, as its banner says it.
    public struct ScanAnswer: Sendable, Encodable {
        public var accepted: Bool
        public var message: String

        public init(accepted: Bool, message: String) {
            self.accepted = accepted
            self.message = message
        }
    }

    /// Takes codes typed into the page (`POST /api/scans`: a handheld scanner in keyboard mode that
    /// the station does not hold types a burst of keys ended by Enter) through `handler`, the
    /// station's scan path, whose checks, banner, sound and log are a scanner's. It answers nil when
    /// the scan could not be recorded.
    public func takeScans(_ handler: @escaping @Sendable (String) -> ScanAnswer?) {
        scanHandler.withLock { $0 = handler }
    }

    /// Shows a scan's outcome on the page (the big banner readable from a metre away).
    public func show(scanAccepted accepted: Bool, message: String) {
        show(accepted ? .accepted : .refused, message: message)
    }

    /// Shows a scan's outcome with its sound and flash, pushed to every listening page at once.
    public func show(_ feedback: StationJSON.Feedback, message: String, task: PickTask? = nil) {
        let seq = scanSequence.withLock { sequence in
            sequence += 1
            return sequence
        }
        let scan = StationJSON.LastScan(
            accepted: feedback == .accepted || feedback == .taskComplete || feedback == .batchComplete,
            message: message, feedback: feedback, seq: seq, pickTask: task)
        lastScan.withLock { $0 = scan }
        if let json = try? Self.encode(scan) { events.publish("scan", json) }
        events.poke()
    }

    /// Shows what the frame source is doing ("camera: not found", "scanner: input ended"), or nil.
    public func show(scanner state: String?) {
        scanner.withLock { $0 = state }
        events.poke()
    }

    /// The page's routes: its three files, the login link, and the JSON API.
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

        static let table = RouteTable<Route>([
            ("GET", "/", { _ in .file("/") }),
            ("GET", "/page.css", { _ in .file("/page.css") }),
            ("GET", "/page.js", { _ in .file("/page.js") }),
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
            ("GET", "/help.js", { _ in .file("/help.js") }),
            ("GET", "/api/help", { _ in .helpState }),
            ("POST", "/api/help", { _ in .callHelp }),
            ("POST", "/api/help/cancel", { _ in .cancelHelp }),
        ])
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let access = self.access.withLock { $0 }
            try access.check(request)
            let route = try Route.table.match(method: request.method, path: request.path)
            if request.method == "POST" {
                try requireJSON(request)
                try Self.refuseRepeatedKeys(request.body)
            }
            switch route {
            case .login:
                return access.login(request)
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
            case .batches:
                return try json(200, Self.encode(try batchChoices(request)))
            case .organisations:
                return try json(200, Self.encode(Organisations(organisations: organisationNames())))
            case .openBatch(let id):
                return json(200, try openBatch(id, request))
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
            var response = Self.httpError(error, body: request.body).response
            response.headers.append(("Cache-Control", "no-store"))
            return response
        }
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

    /// The pill's JSON; it answers even when the queue cannot be read: unknown counts, and why.
    func statusJSON() throws -> String {
        var noticed = attention.current
        let counts: QueueCounts?
        do {
            counts = try station.queue.counts()
        } catch {
            counts = nil
            noticed.append(StationJSON.databaseFailed(error))
        }
        return try StationJSON.status(
            online: sync.isOnline, serverReady: sync.isServerReady, server: station.transport.server, counts: counts,
            attention: StationJSON.attention(station, others: noticed), scanner: scanner.withLock { $0 },
            lastScan: lastScan.withLock { $0 }, timeZone: TimeZone.current.identifier)
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

    /// `POST /api/taps`'s answer once the tap is durable.
    struct TapAnswer: Encodable {
        var actionId: Int
        var pickTask: PickTask
    }

    private func tap(_ request: HTTPRequest) throws -> TapAnswer {
        let body = try JSONDecoder().decode(TapBody.self, from: Data(request.body))
        // The server's rule for the id, before it is looked up or echoed in a refusal.
        try FieldRules.text(body.pickTaskId, field: "pickTaskId")
        let result: StationTaps.Result
        switch body.kind {
        case "pick": result = try station.pageTaps.pick(body.pickTaskId, qty: try body.qty.value(default: 1))
        case "setQty":
            guard body.from != .absent, body.to != .absent else {
                throw HTTPError(status: 400, code: "bad_request", message: "a setQty tap needs from and to")
            }
            result = try station.pageTaps.setQty(
                body.pickTaskId, from: try body.from.value(default: 0), to: try body.to.value(default: 0))
        case "short":
            guard body.qty != .absent, let text = body.reason else {
                throw HTTPError(status: 400, code: "bad_request", message: "a short tap needs qty and reason")
            }
            try FieldRules.shortReason(text)
            let reason = ShortReason(rawValue: text) ?? .other  // checked just above
            result = try station.pageTaps.short(body.pickTaskId, qty: try body.qty.value(default: 1), reason: reason)
        default:
            throw HTTPError(status: 400, code: "bad_request", message: "kind must be pick, setQty or short")
        }
        sync.poke()
        let answer = TapAnswer(actionId: result.actionId, pickTask: result.task)
        if let json = try? Self.encode(answer) { events.publish("tap", json) }
        events.poke()
        return answer
    }

    /// The most characters a code typed into the page may have (the API's barcodes have far fewer:
    /// the scan path refuses those, longer text is not even logged).
    static let maxTypedCode = 256

    /// `POST /api/scans` with `{"code"}`: the code as a scan (``takeScans(_:)``).
    private func scan(_ request: HTTPRequest) throws -> ScanAnswer {
        struct Body: Decodable { var code: String }
        let body = try JSONDecoder().decode(Body.self, from: Data(request.body))
        guard (1...Self.maxTypedCode).contains(body.code.utf8.count) else {
            throw HTTPError(status: 400, code: "invalid_field", message: "code is 1–\(Self.maxTypedCode) characters")
        }
        guard let handler = scanHandler.withLock({ $0 }) else {
            throw HTTPError(status: 503, code: "starting", message: "the station is not taking scans yet")
        }
        guard let answer = handler(body.code) else {
            throw HTTPError(
                status: 503, code: "storage", message: "the scan could not be recorded (the station's database)")
        }
        return answer
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

    private func queueAction(_ action: SupportAction, id text: String, _ request: HTTPRequest) throws -> SupportAnswer {
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

    /// A response body in the API's JSON form (keys sorted, as the command line's `--json` prints).
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func json(_ status: Int, _ text: String) -> HTTPResponse {
        .json(status, Array(text.utf8), headers: [("Cache-Control", "no-store")])
    }

    /// Lets the server's handler reach the page once it exists (the server starts inside `init`).
    private final class Handler: Sendable {
        private let box = Mutex<StationPage?>(nil)
        var page: StationPage? { box.withLock { $0 } }
        func set(_ page: StationPage) { box.withLock { $0 = page } }
    }
}

/// `POST /api/taps`'s body. Quantities are read as any JSON number, so one too big for an `Int`
/// (or with a fraction) is refused as an invalid quantity (422), never as a crash or a parse error.
struct TapBody: Decodable {
    var pickTaskId: String
    var kind: String
    var qty: Quantity
    var from: Quantity
    var to: Quantity
    /// A short tap's reason (a ``ShortReason`` raw value).
    var reason: String?

    /// A quantity as sent: absent, a whole number, or a number no tap can carry.
    enum Quantity: Equatable {
        case absent
        case whole(Int)
        case unusable(String)

        func value(default fallback: Int) throws(TapRefusal) -> Int {
            switch self {
            case .absent: fallback
            case .whole(let value): value
            case .unusable(let text): throw .invalidQuantity("\(text) is not a quantity a tap can carry")
            }
        }
    }

    private enum Keys: String, CodingKey { case pickTaskId, kind, qty, from, to, reason }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        pickTaskId = try container.decode(String.self, forKey: .pickTaskId)
        kind = try container.decode(String.self, forKey: .kind)
        func quantity(_ key: Keys) throws -> Quantity {
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return .absent }
            if let whole = try? container.decode(Int.self, forKey: key) { return .whole(whole) }
            let number = try container.decode(Double.self, forKey: key)  // not a number: a 400
            return .unusable(String(describing: number))
        }
        qty = try quantity(.qty)
        from = try quantity(.from)
        to = try quantity(.to)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
    }
}

/// The page could not start.
public enum StationPageError: Error, CustomStringConvertible {
    case missingFile(String)
    public var description: String { "the station page's file \(name) is missing from the build" }
    private var name: String {
        switch self {
        case .missingFile(let name): name
        }
    }
}
