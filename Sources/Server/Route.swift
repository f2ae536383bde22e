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
    case createShipment
    case voidShipment(id: String)

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
        ("POST", "/api/shipments", { _ in .createShipment }),
        ("POST", "/api/shipments/{}/void", { .voidShipment(id: $0[0]) }),
    ])

    static func match(method: String, path: String) throws(APIError) -> Route {
        try table.match(method: method, path: path)
    }

    /// Whether the route changes state and so needs an idempotency key.
    var isIdempotent: Bool {
        switch self {
        case .submitScan, .pick, .setQty, .createShipment, .voidShipment: true
        case .health, .ready, .upsertOrders, .createBatch, .listBatches, .getBatch, .closeBatch: false
        }
    }
}
