import Digest
import Foundation
import HTTPServing
import JSONText
import Logging
import Metrics
import Storage
import Synchronization
import Timestamps
import Wire

/// The reference ScanPick API: authenticates each request to an organisation, routes it, runs it in
/// one database transaction (SQLite or PostgreSQL, see ``ServerStore``), and logs one line for it.
/// Mutations under `/api/picking/` and `/api/shipments` are idempotent: the first result for a key is
/// stored in the same transaction as the change and replayed byte for byte.
///
///     let api = try ScanPickAPI(configuration: config, logger: logger)
///     let server = try HTTPServer(listen: config.listen, limits: config.http, router: api.route)
public final class ScanPickAPI: Sendable {
    let store: any ServerStore
    private let organisationByTokenHash: [String: String]
    private let inFlight = InFlightKeys()
    let logger: Logger
    public let retentionDays: Int
    private let horizon: IdempotencyHorizon
    let metrics = APIMetrics()
    private let metricsAccess: MetricsAccess
    /// Whether `/metrics` is served here (false when it has a listener of its own).
    private let metricsOnMainListener: Bool
    let fleetStatus: FleetStatus
    let maxStationsPerOrganisation: Int
    let organisations: [String]
    private let fleetPage: FleetPage
    /// Whether the fleet page's session cookie is marked `Secure` (the server serves TLS itself).
    let secureCookies: Bool
    /// How long after its last change a complete batch is closed (`batches.autoCloseMinutes`).
    public let batchAutoClose: Duration
    /// Stations whose requests were refused for their token (the fleet view says why they are silent).
    let refusedTokens = RefusedTokens()
    /// Why the last write failed for want of storage (a full disk, failed storage), until a write
    /// succeeds again: `/health/ready` is not ready meanwhile.
    private let storageTrouble = Mutex<PickingError?>(nil)

    /// Opens the database named by `configuration` and applies its pending migrations.
    public init(configuration: ServerConfiguration, logger: Logger) throws {
        store = try configuration.database.openStore(poolSize: configuration.databasePoolSize)
        var byHash: [String: String] = [:]
        for (organisation, hashes) in configuration.organisations {
            for hash in hashes { byHash[hash] = organisation }
        }
        organisationByTokenHash = byHash
        retentionDays = configuration.idempotencyRetentionDays
        horizon = IdempotencyHorizon(
            retentionDays: configuration.idempotencyRetentionDays, marginHours: configuration.idempotencyMarginHours)
        metricsAccess = MetricsAccess(
            openWithoutToken: configuration.metricsOpenWithoutToken, tokenHashes: Set(configuration.metrics.tokenSha256)
        )
        metricsOnMainListener = configuration.metrics.listen == nil
        fleetStatus = FleetStatus(backlogAlert: configuration.backlogAlertMinutes * 60)
        maxStationsPerOrganisation = configuration.maxStationsPerOrganisation
        organisations = configuration.organisations.keys.sorted()
        fleetPage = try FleetPage()
        secureCookies = configuration.tls != nil
        batchAutoClose = .milliseconds(Int64((configuration.batchAutoCloseMinutes * 60_000).rounded()))
        self.logger = logger
    }

    /// Says how `request` will be answered; the HTTP server calls it on a polling thread, so it never
    /// blocks. `/health` and refusals (a missing token, an unknown route, a bad body) are answered at
    /// once. A scan, pick, quantity change or shipment on SQLite is checked here and committed by the
    /// store's committing thread, which answers it; everything else runs ``handle(_:)`` on a worker.
    public func route(_ request: HTTPRequest) -> HTTPAnswer {
        let start = ContinuousClock.now
        var organisation: String?
        var admitted: Route?
        do {
            let route: Route
            (route, organisation) = try admit(request)
            admitted = route
            switch route {
            case .health:
                return .now(finish(request, Self.healthy, organisation: organisation, route: route, since: start))
            case .fleetPage(let file):
                return .now(finish(request, fleetPage.response(file), organisation: nil, route: route, since: start))
            case .upsertOrders, .createBatch:
                return .onBulkWorker { self.handle(request) }
            case _ where store.writesLater && request.body.count <= Self.largestBodyCheckedInline:
                guard let organisation, let write = try idempotentWrite(route, request, org: organisation) else {
                    break
                }
                return .later { responder in
                    self.commitLater(write, request, route: route, since: start) { responder.respond($0, whenSent: $1) }
                }
            default:
                break
            }
        } catch {
            return .now(
                finish(
                    request, response(for: error, request), organisation: organisation, route: admitted, since: start))
        }
        return .onWorker { self.handle(request) }
    }

    /// How a request to the metrics' own listener (`metrics.listen`) is answered: `GET /metrics` on a
    /// worker (it reads the stations), anything else 404 or 405 at once.
    public func routeMetricsListener(_ request: HTTPRequest) -> HTTPAnswer {
        let start = ContinuousClock.now
        do throws(HTTPError) {
            guard try Route.match(method: request.method, path: request.path) == .metrics else {
                throw HTTPError.noSuchRoute(request.path)
            }
            try metricsAccess.check(request)
        } catch {
            return .now(finish(request, error.response, organisation: nil, route: nil, since: start))
        }
        return .onWorker {
            self.finish(request, self.metricsResponse(), organisation: nil, route: .metrics, since: start)
        }
    }

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

    /// Answers one request, blocking on the database as needed; never throws, never stops the server.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let start = ContinuousClock.now
        var organisation: String?
        var admitted: Route?
        var response: HTTPResponse
        do {
            let route: Route
            (route, organisation) = try admit(request)
            admitted = route
            switch route {
            case .health: response = Self.healthy
            case .ready: response = try ready()
            case .metrics: response = metricsResponse()
            case .fleetPage(let file): response = fleetPage.response(file)
            case .fleetSignIn: response = try fleetSignIn(request)
            case .fleetSignOut: response = try fleetSignOut(request)
            default:
                if organisation == nil, route.acceptsFleetSession {
                    organisation = try fleetSessionOrganisation(request)
                }
                guard let organisation else { throw APIError.unauthorized }
                if let write = try idempotentWrite(route, request, org: organisation) {
                    response = try commitNow(write, request)
                } else {
                    response = try answer(route, request, org: organisation)
                }
            }
        } catch {
            response = self.response(for: error, request)
        }
        return finish(request, response, organisation: organisation, route: admitted, since: start)
    }

    /// The largest fleet sign-in body the server reads, in bytes.
    static let maxSignInBytes = 4096

    /// A body larger than this is decoded on a worker rather than on a polling thread.
    static let largestBodyCheckedInline = 16 * 1024

    private static let healthy = HTTPResponse.json(200, Array(#"{"status":"ok"}"#.utf8))

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
    private func admit(_ request: HTTPRequest) throws(APIError) -> (Route, String?) {
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
    private func admitHead(_ request: HTTPRequest) throws(APIError) -> (Route, String?) {
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

    /// The answer to a failed request: the refusal itself, the store's domain error as HTTP (see
    /// ``APIError/init(_:)``), or a 500; every 5xx is logged.
    private func response(for error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        switch error {
        case let refusal as APIError:
            return refusal.response
        case let failure as PickingError:
            let refusal = APIError(failure)
            noteStorage(failure)
            if refusal.status >= 500 {
                logInternalError(request, failure)
                metrics.countDatabaseError()
            }
            return refusal.response
        default:
            logInternalError(request, error)
            return APIError.internalError.response
        }
    }

    /// Counts the request in the metrics, logs its line and returns its response.
    private func finish(
        _ request: HTTPRequest, _ response: HTTPResponse, organisation: String?, route: Route?,
        since start: ContinuousClock.Instant
    ) -> HTTPResponse {
        account(request, response, organisation: organisation, route: route, since: start)()
        return response
    }

    /// Counts the request in the metrics now (a client that has its answer finds it counted) and
    /// returns the writing of its log line, to run now or once the answer has gone. The time is
    /// taken now, and the line keeps the request's head, not its body.
    private func account(
        _ request: HTTPRequest, _ response: HTTPResponse, organisation: String?, route: Route?,
        since start: ContinuousClock.Instant
    ) -> @Sendable () -> Void {
        let elapsed = ContinuousClock.now - start
        let replayed = response.headers.contains(where: { $0.0 == "Idempotent-Replayed" })
        metrics.record(
            route: route?.metricIndex ?? Route.noRouteMetricIndex, status: response.status,
            seconds: Self.milliseconds(elapsed) / 1000, replayed: replayed)
        var withoutBody = request
        withoutBody.body = []
        let head = withoutBody
        return {
            self.logRequest(head, response, organisation: organisation, elapsed: elapsed, replayed: replayed)
        }
    }

    /// How long the database's commit in progress has run, in nanoseconds (0 when none runs): for a
    /// watchdog, a commit that never ends is a wedged database.
    public var commitRunningFor: UInt64 { store.commitRunningFor }

    /// Remembers a failure for want of storage, for `/health/ready`.
    private func noteStorage(_ failure: PickingError) {
        switch failure {
        case .storageFull, .storageFailed: storageTrouble.withLock { $0 = failure }
        default: break
        }
    }

    /// A write went through: the storage takes writes again.
    private func storageWorks() {
        storageTrouble.withLock { $0 = nil }
    }

    /// `GET /health/ready`: 200 when the database answers a query, and, after a write failed for
    /// want of storage, takes a write again; 503 (`database_unavailable`, `storage_full`,
    /// `storage_failed`) when it does not.
    private func ready() throws(APIError) -> HTTPResponse {
        do {
            if storageTrouble.withLock({ $0 }) != nil {
                try store.checkWritable()
                storageWorks()
            }
            try store.checkReady()
        } catch let failure as PickingError {
            logInternalError(HTTPRequest(method: "GET", path: "/health/ready"), failure)
            metrics.countDatabaseError()
            noteStorage(failure)
            switch failure {
            case .storageFull, .storageFailed: throw APIError(failure)
            default: throw APIError.databaseUnavailable
            }
        } catch {
            logInternalError(HTTPRequest(method: "GET", path: "/health/ready"), error)
            metrics.countDatabaseError()
            throw APIError.databaseUnavailable
        }
        return .json(200, Array(#"{"status":"ready"}"#.utf8))
    }

    /// How many stored answers one pruning transaction deletes at most: an overdue prune (a server
    /// that was off for weeks) goes in many short transactions, so it never holds the writer long.
    public static let pruneBatch = 2_000

    /// Deletes stored idempotency results older than the retention period, at most `batch` per
    /// transaction, each a bulk write that quick ones go before; returns how many.
    @discardableResult
    public func pruneIdempotencyKeys(now: Date = Date(), batch: Int = pruneBatch) throws -> Int {
        let cutoff = now.addingTimeInterval(-Double(retentionDays) * 86_400)
        let dialect = store.dialect
        let batch = max(1, batch)
        var total = 0
        while true {
            let deleted = try store.write(.bulk) { db in
                try IdempotencyRecords.prune(storedBefore: cutoff, now: now, atMost: batch, in: db, dialect: dialect)
            }
            total += deleted
            if deleted < batch { return total }
        }
    }

    /// How often `scanpick serve` looks for complete batches to close: a tenth of
    /// `batches.autoCloseMinutes`, from 0.1 s to a minute, so a batch closes at most that long after
    /// its time.
    public var batchAutoCloseInterval: Duration {
        min(.seconds(60), max(.milliseconds(100), batchAutoClose / 10))
    }

    /// How many batches one closing transaction closes at most.
    static let closeBatch = 1_000

    /// Closes every complete batch (of every organisation) unchanged for `batches.autoCloseMinutes`
    /// at `now`, at most ``closeBatch`` per transaction, each a bulk write that quick ones go before;
    /// returns how many.
    @discardableResult
    public func closeIdleBatches(now: Date = Date()) throws -> Int {
        let seconds = Double(batchAutoClose.components.seconds) + Double(batchAutoClose.components.attoseconds) / 1e18
        let cutoff = now.addingTimeInterval(-seconds)
        var total = 0
        while true {
            let closed = try store.write(.bulk) { db in
                try PickingStore.closeIdleBatches(before: cutoff, now: now, limit: Self.closeBatch, in: db)
            }
            total += closed
            if closed < Self.closeBatch { return total }
        }
    }

    /// Forgets stations not heard from for ``StationRegistry/forgetAfter``; returns how many.
    @discardableResult
    public func forgetSilentStations(now: Date = Date()) throws -> Int {
        let cutoff = now.addingTimeInterval(-StationRegistry.forgetAfter)
        return try store.write(.bulk) { db in try StationRegistry.prune(heardBefore: cutoff, in: db) }
    }

    /// Deletes the fleet page's sessions that have ended; returns how many.
    @discardableResult
    public func forgetEndedFleetSessions(now: Date = Date()) throws -> Int {
        let dialect = store.dialect
        return try store.write(.bulk) { db in try FleetSessions(db: db, dialect: dialect).prune(now: now) }
    }

    /// Applies the pending schema migrations to `database` without serving (`scanpick migrate`);
    /// returns the identifiers applied, empty when it was up to date. Refuses a newer schema.
    public static func migrate(_ database: ServerDatabase) throws -> [String] {
        try database.migrate()
    }

    /// The schema migrations `database` has applied (with when), those pending, and any it has
    /// applied that this scanpick does not know (`scanpick migrate --status` and `--dry-run`).
    public static func migrationStatus(_ database: ServerDatabase) throws -> (
        applied: [(identifier: String, appliedAt: String)], pending: [String], unknown: [String]
    ) {
        try database.migrationStatus()
    }

    // MARK: Routing

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

    /// Orders, batches and reads (the idempotent writes go through ``idempotentWrite(_:_:org:)``).
    private func answer(_ route: Route, _ request: HTTPRequest, org: String) throws -> HTTPResponse {
        switch route {
        case .upsertOrders:
            let body = try JSONCoding.decodeValid(UpsertOrdersRequest.self, from: request.body)
            let feed = OrderFeed(body.orders)
            let count = try transaction(org, request.path, .bulk) { store in try store.upsert(feed) }
            return .json(200, JSONCoding.encode(UpsertOrdersResponse(upserted: count)))
        case .createBatch:
            let body = try JSONCoding.decodeValid(CreateBatchRequest.self, from: request.body)
            // Choose the lines outside the writer, take them inside it (choosing again if a batch made
            // meanwhile took them all), and read the batch back outside.
            for _ in 0..<3 {
                guard let candidates = try read(org, { store in try store.batchCandidates(body.filters) }) else {
                    break
                }
                if let id = try transaction(
                    org, request.path, .bulk, { store in try store.createBatch(of: candidates) })
                {
                    return .json(201, JSONCoding.encode(try read(org) { store in try store.batch(id) }))
                }
            }
            throw PickingError.nothingToBatch
        case .getBatch(let id):
            try Self.requirePathIdentifier(id)
            return .json(200, JSONCoding.encode(try read(org) { store in try store.batch(id) }))
        case .heartbeat:
            return try recordHeartbeat(request, org: org)
        case .stations:
            let now = Date()
            let dialect = store.dialect
            let entries = try store.read { db in try StationRegistry(db: db, dialect: dialect, org: org).stations() }
            let answer = FleetStations(
                org: org, serverTime: Timestamp.iso8601(now),
                stations: entries.map {
                    fleetStatus.view($0, now: now, tokenRefusedAt: refusedTokens.lastRefusal(of: $0.heartbeat.station))
                })
            return .json(200, JSONCoding.encode(answer))
        case .removeStation(let name):
            guard StationIdentity.isValid(name) else { throw APIError.invalidStation }
            let dialect = store.dialect
            let removed = try write(request.path) { db in
                try StationRegistry(db: db, dialect: dialect, org: org).remove(name)
            }
            guard removed else {
                throw APIError(status: 404, code: "not_found", message: "station \(name) has not reported here")
            }
            return .json(200, Array(#"{"removed":true}"#.utf8))
        case .clearHelp(let station):
            return try clearHelp(request, station: station, org: org)
        case .listBatches:
            return .json(200, JSONCoding.encode(try read(org) { store in try store.openBatches() }))
        case .closeBatch(let id):
            try Self.requirePathIdentifier(id)
            // The body is an object (or none); anything else is a client's mistake, said, not ignored.
            // Closing is idempotent by nature (a closed batch stays as it is): a key, when sent, is
            // only echoed, so a station can queue its close like any action.
            let body =
                request.body.isEmpty ? CloseBatchBody() : try JSONCoding.decode(CloseBatchBody.self, from: request.body)
            let key: String? =
                body.idempotencyKey != nil || request.header("idempotency-key") != nil
                ? try IdempotencyKey.resolve(body: body.idempotencyKey, header: request.header("idempotency-key"))
                : nil
            let batch = try transaction(org, request.path) { store in try store.closeBatch(id) }
            return .json(200, JSONCoding.encode(batch), headers: key.map { [("Idempotency-Key", $0)] } ?? [])
        case .health, .ready, .submitScan, .pick, .setQty, .short, .createShipment, .voidShipment, .metrics,
            .fleetPage, .fleetSignIn, .fleetSignOut:
            throw APIError.internalError  // answered in handle(_:)
        }
    }

    /// The idempotent mutation a request asks for, checked and ready to commit, or nil when the route
    /// is not one (orders, batches, reads).
    private func idempotentWrite(_ route: Route, _ request: HTTPRequest, org: String) throws -> IdempotentWrite? {
        switch route {
        case .submitScan:
            return try IdempotentWrite(
                request, org: org, horizon: horizon, route: "submit-scan", as: SubmitScanRequest.self
            ) {
                store, body, key in PickTaskResponse(pickTask: try store.submitScan(body, key: key))
            }
        case .pick:
            return try IdempotentWrite(request, org: org, horizon: horizon, route: "pick", as: PickRequest.self) {
                store, body, key in PickTaskResponse(pickTask: try store.pick(body, key: key))
            }
        case .setQty:
            return try IdempotentWrite(request, org: org, horizon: horizon, route: "set-qty", as: SetQtyRequest.self) {
                store, body, key in PickTaskResponse(pickTask: try store.setQty(body, key: key))
            }
        case .short:
            return try IdempotentWrite(request, org: org, horizon: horizon, route: "short", as: ShortPickRequest.self) {
                store, body, key in PickTaskResponse(pickTask: try store.short(body, key: key))
            }
        case .createShipment:
            return try IdempotentWrite(
                request, org: org, horizon: horizon, route: "shipments", as: CreateShipmentRequest.self, status: 201
            ) { store, body, _ in try store.createShipment(body) }
        case .voidShipment(let id):
            try Self.requirePathIdentifier(id)
            return try IdempotentWrite(
                request, org: org, horizon: horizon, route: "void:\(id)", as: VoidShipmentRequest.self
            ) {
                store, _, _ in try store.voidShipment(id)
            }
        case .health, .ready, .upsertOrders, .createBatch, .listBatches, .getBatch, .closeBatch, .heartbeat, .stations,
            .removeStation, .metrics, .fleetPage, .fleetSignIn, .fleetSignOut, .clearHelp:
            return nil
        }
    }

    /// Runs an idempotent write and waits for its commit (a worker thread).
    private func commitNow(_ write: IdempotentWrite, _ request: HTTPRequest) throws -> HTTPResponse {
        guard inFlight.claim(org: write.org, key: write.key) else { throw APIError.inProgress }
        defer { inFlight.release(org: write.org, key: write.key) }
        let dialect = store.dialect
        return try self.write(request.path) { db in try write.runOnce(db, dialect) }
    }

    /// Queues an idempotent write for the store's committing thread and returns at once; `respond`
    /// gets the response once it is committed or refused (counted in the metrics), and what to run
    /// once it has been sent: the log line, which so costs the committing thread nothing.
    private func commitLater(
        _ write: IdempotentWrite, _ request: HTTPRequest, route: Route, since start: ContinuousClock.Instant,
        respond: @escaping @Sendable (HTTPResponse, _ whenSent: @escaping @Sendable () -> Void) -> Void
    ) {
        guard inFlight.claim(org: write.org, key: write.key) else {
            let response = APIError.inProgress.response
            respond(response, account(request, response, organisation: write.org, route: route, since: start))
            return
        }
        let dialect = store.dialect
        store.writeLater(.quick, timed(request.path) { db in try write.runOnce(db, dialect) }) { result in
            self.inFlight.release(org: write.org, key: write.key)
            let response: HTTPResponse
            switch result {
            case .success(let answer):
                response = answer
                self.storageWorks()
            case .failure(let error): response = self.response(for: error, request)
            }
            respond(response, self.account(request, response, organisation: write.org, route: route, since: start))
        }
    }

    /// Runs `body` in one immediate transaction for `org`.
    private func transaction<T: Sendable>(
        _ org: String, _ path: String, _ priority: WritePriority = .quick,
        _ body: @escaping (PickingStore) throws -> T
    ) throws -> T {
        let dialect = store.dialect
        return try write(path, priority) { db in
            try body(PickingStore(db: db, dialect: dialect, org: org, now: Date()))
        }
    }

    /// Runs `body` in a read transaction for `org`, beside the writes.
    private func read<T: Sendable>(_ org: String, _ body: (PickingStore) throws -> T) throws -> T {
        let dialect = store.dialect
        return try store.read { db in try body(PickingStore(db: db, dialect: dialect, org: org, now: Date())) }
    }

    /// How long one request's work may hold the write transaction (SQLite's only writer) before the
    /// server logs it as a `slow_transaction`: the bounds on every request are meant to keep each
    /// one well under it.
    static let writerHoldLimit = Duration.milliseconds(100)

    /// Runs `body` in the store's write transaction, timing the part that is this request's own.
    func write<T: Sendable>(
        _ path: String, _ priority: WritePriority = .quick,
        _ body: @escaping (any SQLConnection) throws -> T
    ) throws -> T {
        let result = try store.write(priority, timed(path, body))
        storageWorks()
        return result
    }

    /// `body`, logging a `slow_transaction` when it holds the writer longer than ``writerHoldLimit``.
    private func timed<T>(_ path: String, _ body: @escaping (any SQLConnection) throws -> T) -> (any SQLConnection)
        throws -> T
    {
        { db in
            let start = ContinuousClock.now
            defer {
                let held = ContinuousClock.now - start
                if held > Self.writerHoldLimit {
                    self.logger.warning(
                        "slow_transaction", ["path": .string(path), "ms": .milliseconds(Self.milliseconds(held))])
                }
            }
            return try body(db)
        }
    }

    /// An id taken from the path (a batch, a shipment) keeps the same rules as one in a body.
    private static func requirePathIdentifier(_ id: String) throws(APIError) {
        do {
            try FieldRules.text(id, field: "id (in the path)")
        } catch {
            throw APIError.invalid(error)
        }
    }

    // MARK: Logging

    /// One line per request: time, level (`error` for a 5xx, the server's fault), method, path,
    /// status, milliseconds, organisation, the station that sent it (its checked
    /// `X-ScanPick-Station`). Never a token.
    func logRequest(
        _ request: HTTPRequest, _ response: HTTPResponse, organisation: String?, elapsed: Duration, replayed: Bool
    ) {
        logger.log(response.status >= 500 ? .error : .info, event: nil) { line in
            line.add("method", string: request.method)
            line.add("path", string: request.path)
            line.add("status", number: response.status)
            line.add("ms", milliseconds: Self.milliseconds(elapsed))
            if let organisation { line.add("org", string: organisation) }
            if let station = request.header(StationIdentity.header), StationIdentity.isValid(station) {
                line.add("station", string: station)
            }
            if replayed { line.add("replayed", bool: true) }
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
    }

    /// A failure of the server's own (a 5xx): what failed and where.
    func logInternalError(_ request: HTTPRequest, _ error: any Error) {
        logger.error("internal_error", ["path": .string(request.path), "error": .error(error)])
    }
}
