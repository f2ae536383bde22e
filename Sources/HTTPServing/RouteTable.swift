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
    /// The routes without a `{}`, by their path as written and method: found with one lookup, the
    /// path not split. Only where the table's order gives that route for that path and method (no
    /// earlier pattern matches it); any other path goes the long way, with the same answer.
    let exact: [String: [String: Route]]

    /// `entries`: method, path pattern (`/api/batches/{}`), and the route made from the captured
    /// `{}` segments, in order (a route without `{}` is made once, here).
    public init(_ entries: [(method: String, path: String, make: @Sendable ([String]) -> Route)]) {
        let entries = entries.map { Entry(method: $0.method, segments: Self.segments($0.path), make: $0.make) }
        var exact: [String: [String: Route]] = [:]
        // A pattern segment holding a slash (written `%2F`) would be a different path written whole.
        for (index, entry) in entries.enumerated()
        where !entry.segments.contains("{}") && !entry.segments.contains(where: { $0.contains("/") }) {
            let path = "/" + entry.segments.joined(separator: "/")
            guard
                case .found(index, let captured) = Self.first(
                    in: entries, method: entry.method, segments: entry.segments)
            else { continue }
            exact[path, default: [:]][entry.method] = entry.make(captured)
        }
        self.entries = entries
        self.exact = exact
    }

    /// The route for `method` and `path`, or the 404/405 to answer.
    public func match(method: String, path: String) throws(HTTPError) -> Route {
        if let route = exact[path]?[method] { return route }
        switch Self.first(in: entries, method: method, segments: Self.segments(path)) {
        case .found(let index, let captured): return entries[index].make(captured)
        case .otherMethods(let allowed) where !allowed.isEmpty: throw .methodNotAllowed(allowed)
        case .otherMethods: throw .noSuchRoute(path)
        }
    }

    /// What the first entry matching `segments` is.
    private enum Lookup {
        /// The first entry for these segments and this method, with the segments its `{}` took.
        case found(Int, captured: [String])
        /// None for this method; the methods of those that match the segments (none: no such path).
        case otherMethods([String])
    }

    private static func first(in entries: [Entry], method: String, segments: [String]) -> Lookup {
        var allowed: [String] = []
        for (index, entry) in entries.enumerated() where entry.segments.count == segments.count {
            var captured: [String] = []
            let matches = zip(entry.segments, segments).allSatisfy { pattern, segment in
                if pattern == "{}" {
                    captured.append(segment)
                    return true
                }
                return pattern == segment
            }
            guard matches else { continue }
            if entry.method == method { return .found(index, captured: captured) }
            allowed.append(entry.method)
        }
        return .otherMethods(allowed)
    }

    /// The path's segments, each with the `%2F` and `%25` the server left encoded decoded now, so a
    /// slash inside a segment stays inside it.
    static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            guard segment.utf8.contains(UInt8(ascii: "%")) else { return String(segment) }  // not Foundation's search
            let raw = Array(segment.utf8)
            var bytes: [UInt8] = []
            var index = 0
            while index < raw.count {
                switch String(decoding: raw[index..<min(index + 3, raw.count)], as: UTF8.self) {
                case "%2F", "%2f": bytes.append(UInt8(ascii: "/"))
                case "%25": bytes.append(UInt8(ascii: "%"))
                default:
                    bytes.append(raw[index])
                    index += 1
                    continue
                }
                index += 3
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
