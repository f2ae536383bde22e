/// An HTTP request as the server received it: method, path, query, headers and the whole body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, e.g. `/api/batches/b1`.
    public var path: String
    /// Query parameters (the last value wins for a repeated name).
    public var query: [String: String]
    /// Header values by lower-cased name (the last value wins for a repeated name; see
    /// ``repeatedHeaders``).
    public var headers: [String: String]
    public var body: [UInt8]
    /// The lower-cased names of headers the request sent more than once, so that a handler can
    /// refuse an ambiguous `Authorization` or `Idempotency-Key`.
    public var repeatedHeaders: Set<String>

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], repeatedHeaders: Set<String> = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.repeatedHeaders = repeatedHeaders
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the server sends back.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from already-encoded bytes.
    public static func json(_ status: Int, _ body: [UInt8], headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }
}
