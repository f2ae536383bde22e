import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small HTTP client for tests of the API: JSON in, status, headers and body out.
///
///     let client = APIClient(server.baseURL, token: "test-token-acme")
///     let reply = try await client.post("/api/orders", json: ["orders": []])
public struct APIClient: Sendable {
    public var baseURL: URL
    public var token: String?

    public init(_ baseURL: URL, token: String?) {
        self.baseURL = baseURL
        self.token = token
    }

    /// What the server answered.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data

        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The `error` code of an error body.
        public var errorCode: String? { json["error"] as? String }
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        // Wide: a request the test holds on purpose (a proxy's held answer) may wait while the rest of
        // a loaded two-core suite runs.
        configuration.timeoutIntervalForRequest = 120
        // Cookies only as a test sends them: one test's server must never see another's.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration)
    }()

    public func get(_ path: String) async throws -> Reply { try await send("GET", path, body: nil) }

    public func post(_ path: String, json: Any, headers: [String: String] = [:]) async throws -> Reply {
        try await send("POST", path, body: try JSONSerialization.data(withJSONObject: json), headers: headers)
    }

    /// `POST /api/orders` with one order of one line: an ERP's change to that order (a line left
    /// out of it is gone from the order).
    public func upsertOrder(_ id: String, carrier: String, zone: String, shipBy: String, line: [String: Any])
        async throws -> Reply
    {
        let order: [String: Any] = ["id": id, "carrier": carrier, "zone": zone, "shipBy": shipBy, "lines": [line]]
        return try await post("/api/orders", json: ["orders": [order]])
    }

    /// Sends a request; `path` is percent-encoded as a path (a `%` in it is sent as `%25`) unless
    /// `encoded`, when it goes on the wire as written (`st%2F4` to test the server's decoding).
    public func send(
        _ method: String, _ path: String, body: Data?, headers: [String: String] = [:], encoded: Bool = false
    ) async throws -> Reply {
        let url = encoded ? URL(string: baseURL.absoluteString + path) : baseURL.appendingPathComponent(path)
        var request = URLRequest(url: try url ?? { throw URLError(.badURL) }())
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var replyHeaders: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            replyHeaders[String(describing: name).lowercased()] = String(describing: value)
        }
        return Reply(status: http.statusCode, headers: replyHeaders, body: data)
    }
}
