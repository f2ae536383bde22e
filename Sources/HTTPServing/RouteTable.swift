/// A server's routes: method and path pattern → the route value the handler switches on. A path
/// that exists with another method is 405 (with `Allow`); a path no route has is 404
/// `no_such_route`. Both servers declare theirs this way, once.
///
///     static let table = RouteTable<Route>([
///         ("GET", "/api/batches/{}", { .getBatch(id: $0[0]) }),  // {} matches one path segment
///     ])
///     let route = try Route.table.match(method: request.method, path: request.path)
public struct RouteTable<Route: Sendable>: Sendable {
    /// One route: its method, its path's segments (`{}` matches any one), and how to make the value.
    struct Entry: Sendable {
        let method: String
        let segments: [String]
        let make: @Sendable ([String]) -> Route
    }

    let entries: [Entry]

    /// `entries`: method, path pattern (`/api/batches/{}`), and the route made from the captured
    /// `{}` segments, in order.
    public init(_ entries: [(method: String, path: String, make: @Sendable ([String]) -> Route)]) {
        self.entries = entries.map { Entry(method: $0.method, segments: Self.segments($0.path), make: $0.make) }
    }

    /// The route for `method` and `path`, or the 404/405 to answer.
    public func match(method: String, path: String) throws(HTTPError) -> Route {
        let segments = Self.segments(path)
        var allowed: [String] = []
        for entry in entries where entry.segments.count == segments.count {
            var captured: [String] = []
            let matches = zip(entry.segments, segments).allSatisfy { pattern, segment in
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
        if allowed.isEmpty { throw .noSuchRoute(path) }
        throw .methodNotAllowed(allowed)
    }

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}
