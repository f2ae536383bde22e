import HTTPServing

/// The API's routes, matched from method and path. A path that exists with another method is a 405;
/// a path that does not exist is a 404.
enum Route: Equatable, Sendable {
    case health
    case ready
    case upsertOrders
    case createBatch
    case listBatches
    case getBatch(id: String)
    case closeBatch(id: String)
    case submitScan
    case pick
    case setQty
    case short
    case createShipment
    case voidShipment(id: String)
    case heartbeat
    case stations
    case removeStation(name: String)
    case metrics
    case fleetPage(file: String)
    case fleetSignIn
    case fleetSignOut
    case clearHelp(station: String)

    /// Every route of the API, by method and path.
    static let table = RouteTable<Route>([
        ("GET", "/health", { _ in .health }),
        ("GET", "/health/ready", { _ in .ready }),
        ("POST", "/api/orders", { _ in .upsertOrders }),
        ("POST", "/api/batches", { _ in .createBatch }),
        ("GET", "/api/batches", { _ in .listBatches }),
        ("GET", "/api/batches/{}", { .getBatch(id: $0[0]) }),
        ("POST", "/api/batches/{}/close", { .closeBatch(id: $0[0]) }),
        ("POST", "/api/picking/submit-scan", { _ in .submitScan }),
        ("POST", "/api/picking/pick", { _ in .pick }),
        ("POST", "/api/picking/set-qty", { _ in .setQty }),
        ("POST", "/api/picking/short", { _ in .short }),
        ("POST", "/api/shipments", { _ in .createShipment }),
        ("POST", "/api/shipments/{}/void", { .voidShipment(id: $0[0]) }),
        ("POST", "/api/stations/heartbeat", { _ in .heartbeat }),
        ("GET", "/api/stations", { _ in .stations }),
        ("DELETE", "/api/stations/{}", { .removeStation(name: $0[0]) }),
        ("POST", "/api/stations/{}/help/clear", { .clearHelp(station: $0[0]) }),
        ("GET", "/metrics", { _ in .metrics }),
        ("GET", "/fleet", { _ in .fleetPage(file: "fleet.html") }),
        ("GET", "/fleet/fleet.js", { _ in .fleetPage(file: "fleet.js") }),
        ("GET", "/fleet/fleet.css", { _ in .fleetPage(file: "fleet.css") }),
        ("POST", "/fleet/session", { _ in .fleetSignIn }),
        ("DELETE", "/fleet/session", { _ in .fleetSignOut }),
    ])

    static func match(method: String, path: String) throws(APIError) -> Route {
        try table.match(method: method, path: path)
    }

    /// Whether the route changes state and so needs an idempotency key.
    var isIdempotent: Bool {
        switch self {
        case .submitScan, .pick, .setQty, .short, .createShipment, .voidShipment: true
        case .health, .ready, .upsertOrders, .createBatch, .listBatches, .getBatch, .closeBatch, .heartbeat, .stations,
            .removeStation, .metrics, .fleetPage, .fleetSignIn, .fleetSignOut, .clearHelp:
            false
        }
    }

    /// Whether the route acts for an organisation and so needs its token (every `/api/` route).
    /// `/metrics` has its own rule (``MetricsAccess``); the fleet page's files are public, and its
    /// sign-in and sign-out carry their own credentials (the token in the body, the session cookie).
    var needsOrganisation: Bool {
        switch self {
        case .health, .ready, .metrics, .fleetPage, .fleetSignIn, .fleetSignOut: false
        default: true
        }
    }

    /// Whether the fleet page's session cookie may stand for the token: only what the page does
    /// (read the stations, clear a call for help), never a pick, an order or a station's heartbeat.
    var acceptsFleetSession: Bool {
        switch self {
        case .stations, .clearHelp: true
        default: false
        }
    }

    /// The routes' names in metrics, a fixed list (no label a request chooses), then `none` for a
    /// request refused before it had a route (a missing token, an unknown path).
    static let metricNames = [
        "health", "ready", "orders", "create_batch", "get_batch", "submit_scan", "pick", "set_qty", "create_shipment",
        "void_shipment", "heartbeat", "stations", "remove_station", "metrics", "fleet_page", "list_batches",
        "close_batch", "fleet_sign_in", "fleet_sign_out", "clear_help", "short", "none",
    ]

    /// This route's index in ``metricNames``.
    var metricIndex: Int {
        switch self {
        case .health: 0
        case .ready: 1
        case .upsertOrders: 2
        case .createBatch: 3
        case .getBatch: 4
        case .submitScan: 5
        case .pick: 6
        case .setQty: 7
        case .createShipment: 8
        case .voidShipment: 9
        case .heartbeat: 10
        case .stations: 11
        case .removeStation: 12
        case .metrics: 13
        case .fleetPage: 14
        case .listBatches: 15
        case .closeBatch: 16
        case .fleetSignIn: 17
        case .fleetSignOut: 18
        case .clearHelp: 19
        case .short: 20
        }
    }

    /// The index of `none` in ``metricNames``.
    static let noRouteMetricIndex = 21
}
