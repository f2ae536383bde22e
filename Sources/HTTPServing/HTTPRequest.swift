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
    /// What the server's head check learned of this request when it let the head through (say, its
    /// route and the organisation its token names), handed to the router with the whole request so
    /// that the work is not done twice; nil when no head check set it.
    public var admission: (any Sendable)?

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

    /// The value of header `name` (ASCII case-insensitive, as HTTP header names are ASCII). A name
    /// already in lower case, as the server's own are, is looked up as it is, without a copy.
    public func header(_ name: String) -> String? {
        name.utf8.contains(where: { (65...90).contains($0) }) ? headers[name.lowercased()] : headers[name]
    }
}

/// What the server sends back: a whole body, or a ``HTTPStream`` written over time.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// When set, the body is this stream (and `body` is not sent).
    public var stream: HTTPStream?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], stream: HTTPStream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// A response whose body is `stream`, sent as it is written (chunked).
    public static func stream(_ status: Int, headers: [(String, String)], _ stream: HTTPStream) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, stream: stream)
    }

    /// A JSON response from already-encoded bytes.
    public static func json(_ status: Int, _ body: [UInt8], headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }
}
