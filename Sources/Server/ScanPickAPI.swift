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
///
/// This file holds its state and its entry points (``route(_:)``, ``handle(_:)``). Its other parts,
/// each an extension in a file of its own: `ScanPickAPI+Admission` (what a request's head decides:
/// token, route, limits), `ScanPickAPI+OrdersAndBatches` (orders, batches and the station list),
/// `ScanPickAPI+IdempotentWrites` (scans, picks, quantities, shorts, shipments),
/// `ScanPickAPI+Transactions` (the store's transactions and `/health/ready`),
/// `ScanPickAPI+RequestLog` (metrics and the log line of each request), `ScanPickAPI+Housekeeping`
/// (pruning, closing idle batches, migrations), and under `Fleet/` and `Metrics/` the fleet's and
/// the metrics' routes.
public final class ScanPickAPI: Sendable {
    let store: any ServerStore
    let organisationByTokenHash: [String: String]
    let inFlight = InFlightKeys()
    let logger: Logger
    public let retentionDays: Int
    let horizon: IdempotencyHorizon
    let metrics = APIMetrics()
    let metricsAccess: MetricsAccess
    /// Whether `/metrics` is served here (false when it has a listener of its own).
    let metricsOnMainListener: Bool
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
    let storageTrouble = Mutex<PickingError?>(nil)
    /// Whether the server is stopping, and whether it has said that its database is newer than it
    /// (see ``ready()``).
    let readiness = Mutex<Readiness>(Readiness())

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

    /// The answer to a failed request: the refusal itself, the store's domain error as HTTP (see
    /// ``APIError/init(_:)``), or a 500; every 5xx is logged.
    func response(for error: any Error, _ request: HTTPRequest) -> HTTPResponse {
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
}
