/// The API's routes, matched from method and path. A path that exists with another method is a 405;
/// a path that does not exist is a 404.
enum Route: Equatable {
    case health
    case ready
    case upsertOrders
    case createBatch
    case getBatch(id: String)
    case submitScan
    case pick
    case setQty
    case createShipment
    case voidShipment(id: String)

    /// Method, path pattern (`{}` matches one segment) and how to build the route from the segments.
    private static let table: [(method: String, pattern: [String], make: @Sendable ([String]) -> Route)] = [
        ("GET", ["health"], { _ in .health }),
        ("GET", ["health", "ready"], { _ in .ready }),
        ("POST", ["api", "orders"], { _ in .upsertOrders }),
        ("POST", ["api", "batches"], { _ in .createBatch }),
        ("GET", ["api", "batches", "{}"], { .getBatch(id: $0[0]) }),
        ("POST", ["api", "picking", "submit-scan"], { _ in .submitScan }),
        ("POST", ["api", "picking", "pick"], { _ in .pick }),
        ("POST", ["api", "picking", "set-qty"], { _ in .setQty }),
        ("POST", ["api", "shipments"], { _ in .createShipment }),
        ("POST", ["api", "shipments", "{}", "void"], { .voidShipment(id: $0[0]) }),
    ]

    static func match(method: String, path: String) throws(APIError) -> Route {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var allowed: [String] = []
        for entry in table where entry.pattern.count == segments.count {
            var captured: [String] = []
            let matches = zip(entry.pattern, segments).allSatisfy { pattern, segment in
                if pattern == "{}" {
                    captured.append(segment)
                    return true
                }
                return pattern == segment
            }
            guard matches else { continue }
            if entry.method == method { return entry.make(captured) }
            allowed.append(entry.method)
        }
        // Its own code, so a client can tell a wrong base URL from a resource that does not exist.
        if allowed.isEmpty { throw APIError(status: 404, code: "no_such_route", message: "there is no route \(path)") }
        throw APIError.methodNotAllowed(allowed)
    }

    /// Whether the route changes state and so needs an idempotency key.
    var isIdempotent: Bool {
        switch self {
        case .submitScan, .pick, .setQty, .createShipment, .voidShipment: true
        case .health, .ready, .upsertOrders, .createBatch, .getBatch: false
        }
    }
}
