import Foundation
import Wire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Delivers one queued action to the ScanPick API.
public protocol ActionTransport: Sendable {
    func deliver(_ action: QueuedAction) async -> DeliveryOutcome
}

/// The ScanPick API over HTTP with Foundation's URLSession: POSTs the action's stored body to its
/// route with the organisation's bearer token and the `Idempotency-Key` header.
///
///     let transport = HTTPActionTransport(server: url, tokens: ["acme": token], timeout: 10)
public final class HTTPActionTransport: ActionTransport {
    public let server: URL
    private let tokens: [String: String]
    private let timeout: TimeInterval
    private let session: URLSession

    /// `timeout` is whole seconds, at least 1: URLSession on Linux truncates it (measured: 0.5 s
    /// fails every request that is not answered at once, 1.5 s waits 1 s).
    public init(server: URL, tokens: [String: String], timeout: TimeInterval) {
        self.server = server
        self.tokens = tokens
        self.timeout = timeout
        session = Self.makeSession(timeout: timeout)
    }

    private static func makeSession(timeout: TimeInterval) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 4
        return URLSession(configuration: configuration)
    }

    public func deliver(_ action: QueuedAction) async -> DeliveryOutcome {
        guard let token = tokens[action.org] else {
            return .transient(
                status: nil, reason: "no token configured for organisation \(action.org)", retryAfter: nil)
        }
        var request = URLRequest(url: server.appendingPathComponent(action.kind.path))
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        request.httpBody = Data(action.payload)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(action.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        do {
            let (body, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                return .transient(status: nil, reason: "not an HTTP response", retryAfter: nil)
            }
            return DeliveryOutcome.classify(
                status: http.statusCode, body: body, retryAfterHeader: http.value(forHTTPHeaderField: "Retry-After"))
        } catch {
            return .transient(status: nil, reason: Self.describe(error), retryAfter: nil)
        }
    }

    /// `GET /api/batches/{id}` for `org`: the server's view of a batch.
    public func fetchBatch(_ id: String, org: String) async throws(FetchError) -> Batch {
        guard let token = tokens[org] else { throw .noToken(org) }
        var request = URLRequest(url: server.appendingPathComponent("/api/batches/\(id)"))
        request.timeoutInterval = timeout
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return try await batch(from: request)
    }

    /// `POST /api/batches` for `org`: the server resolves the filters against its orders table.
    public func createBatch(_ filters: BatchFilters, org: String) async throws(FetchError) -> Batch {
        guard let token = tokens[org] else { throw .noToken(org) }
        var request = URLRequest(url: server.appendingPathComponent("/api/batches"))
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONEncoder().encode(CreateBatchRequest(filters: filters))
        return try await batch(from: request)
    }

    /// Sends a request whose answer is a batch.
    private func batch(from request: URLRequest) async throws(FetchError) -> Batch {
        let body: Data
        let response: URLResponse
        do {
            (body, response) = try await session.data(for: request)
        } catch {
            throw .unreachable(server, reason: Self.describe(error))
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            let reason = (object?["message"] as? String) ?? String(decoding: body.prefix(500), as: UTF8.self)
            throw .refused(status: status, reason: reason)
        }
        do {
            return try JSONDecoder().decode(Batch.self, from: body)
        } catch {
            throw .refused(status: status, reason: "the server's batch could not be read: \(error)")
        }
    }

    /// GET /health with a short timeout: whether the server answers at all.
    public func isReachable(timeout: TimeInterval) async -> Bool {
        var request = URLRequest(url: server.appendingPathComponent("/health"))
        request.timeoutInterval = timeout
        guard let (_, response) = try? await session.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        switch nsError.code {
        case NSURLErrorTimedOut: return "timed out waiting for the server"
        case NSURLErrorCannotConnectToHost: return "cannot connect to the server (connection refused)"
        case NSURLErrorNetworkConnectionLost: return "the connection was lost"
        case NSURLErrorNotConnectedToInternet: return "no network"
        default: return nsError.localizedDescription
        }
    }
}

/// Why a batch could not be fetched.
public enum FetchError: Error, Sendable, CustomStringConvertible {
    case noToken(String)
    case unreachable(URL, reason: String)
    case refused(status: Int, reason: String)

    public var description: String {
        switch self {
        case .noToken(let org): "no token is configured for organisation \(org)"
        case .unreachable(let server, let reason): "cannot reach the server at \(server): \(reason)"
        case .refused(let status, let reason): "the server answered \(status): \(reason)"
        }
    }
}
