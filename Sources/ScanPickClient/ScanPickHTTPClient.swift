import Foundation
import Queue
import Synchronization
import Timestamps
import Wire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ScanPick API over HTTP with Foundation's URLSession: POSTs the action's stored body to its
/// route with the organisation's bearer token, the `Idempotency-Key` header, the station's clock
/// (``clockHeader``) and its name (`X-ScanPick-Station`, on every request). The server and the
/// tokens can be replaced while it runs (a corrected config, re-read without a restart).
///
///     let client = ScanPickHTTPClient(server: url, tokens: ["acme": token], timeout: 10)
public final class ScanPickHTTPClient: ScanPickAPIClient {
    private let settings: Mutex<(server: URL, tokens: [String: String])>
    private let timeout: TimeInterval
    private let session: URLSession
    /// Reads answers up to ``maxAnswerBytes`` (and refuses redirects): the session's delegate.
    private let reader = AnswerReader()
    /// The most bytes of one answer read (`queue.maxAnswerBytes`).
    public let maxAnswerBytes: Int
    private let now: @Sendable () -> Date
    /// The station's name, sent as `X-ScanPick-Station` with every request (nil: not sent).
    public let station: String?

    /// `timeout` is whole seconds, at least 1: URLSession on Linux truncates it (measured: 0.5 s
    /// fails every request that is not answered at once, 1.5 s waits 1 s). `now` is the station's
    /// clock, sent with every action (tests set a wrong one). An answer over `maxAnswerBytes` is
    /// refused (``FetchError/untrustedAnswer(reason:)``; a transient failure for an action).
    public init(
        server: URL, tokens: [String: String], timeout: TimeInterval, station: String? = nil,
        maxAnswerBytes: Int = QueueOptions().maxAnswerBytes, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.station = station
        self.maxAnswerBytes = maxAnswerBytes
        settings = Mutex((server, tokens))
        self.timeout = timeout
        self.now = now
        session = Self.makeSession(timeout: timeout, delegate: reader)
    }

    /// The request header that tells the server the station's clock when it sends: the server judges
    /// the idempotency horizon on the station's action times, so it refuses them (422 `clock_skew`)
    /// when that clock is too far from its own.
    public static let clockHeader = "X-ScanPick-Clock"

    /// The server requests go to.
    public var server: URL { settings.withLock { $0.server } }

    private var tokens: [String: String] { settings.withLock { $0.tokens } }

    /// Sends later requests to `server` with `tokens` (requests already under way finish as they were).
    public func update(server: URL, tokens: [String: String]) {
        settings.withLock { $0 = (server, tokens) }
    }

    /// A request to `path` on the server, with the station's name (every request the station makes
    /// is built here, so the server can always tell which station sent it).
    private func makeRequest(_ server: URL, _ path: String) -> URLRequest {
        var request = URLRequest(url: server.appendingPathComponent(path))
        request.timeoutInterval = timeout
        if let station { request.setValue(station, forHTTPHeaderField: StationIdentity.header) }
        return request
    }

    /// A session that never follows a redirect: URLSession would turn the POST into a GET to
    /// wherever it points (a 405 there, or a page that is not the API). The 3xx itself comes back
    /// and pauses the queue (see ``DeliveryOutcome/classify(status:headers:body:sentKey:org:server:now:)``).
    private static func makeSession(timeout: TimeInterval, delegate: AnswerReader) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        // No cache and no cookies, in memory or on disk: an API answer is never reused, and
        // Foundation would otherwise make folders under the service user's home (/var/lib/scanpick).
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 4
        return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// An answer's header fields with their names in lower case.
    static func headerFields(_ response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            fields[String(describing: name).lowercased()] = String(describing: value)
        }
        return fields
    }

    public func deliver(_ action: QueuedAction) async -> DeliveryOutcome {
        let (server, tokens) = settings.withLock { ($0.server, $0.tokens) }
        guard let token = tokens[action.org] else {
            return .paused(
                Attention(
                    code: "no_token",
                    message:
                        "no token is configured for organisation \(action.org): add organisations.\(action.org) to the station config; the queue waits, nothing is lost"
                ), status: nil)
        }
        var request = makeRequest(server, action.path)
        request.httpMethod = "POST"
        request.httpBody = Data(action.payload)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(action.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        request.setValue(Timestamp.iso8601(now()), forHTTPHeaderField: Self.clockHeader)
        do {
            let (body, response) = try await reader.fetch(request, on: session, limit: maxAnswerBytes)
            guard let http = response as? HTTPURLResponse else {
                return .transient(status: nil, reason: "not an HTTP response", retryAfter: nil)
            }
            return DeliveryOutcome.classify(
                status: http.statusCode, headers: Self.headerFields(http), body: body, sentKey: action.idempotencyKey,
                org: action.org, server: server)
        } catch {
            if Self.isTLSFailure(error) {
                return .paused(
                    Attention(
                        code: "tls",
                        message:
                            "the TLS connection to \(ServerURL.redacted(server)) failed (\(Self.describe(error))): check `server` in the station config and the server's certificate; the queue waits, nothing is lost"
                    ), status: nil)
            }
            return .transient(status: nil, reason: Self.describe(error), retryAfter: nil)
        }
    }

    /// Whether `error` is a TLS failure of the setup — a certificate not trusted or not for this
    /// host, TLS spoken to something that does not speak it — which retrying does not mend. A
    /// connection cut or reset during the handshake is the network's and stays transient.
    /// Foundation on Linux reports libcurl's TLS failures as code -1 (NSURLErrorUnknown) with
    /// OpenSSL's words and drops libcurl's code, so past the TLS codes it takes only the words of
    /// those setup failures, never any message that merely mentions "SSL" (a cut handshake reads
    /// "OpenSSL SSL_connect: SSL_ERROR_SYSCALL").
    static func isTLSFailure(_ error: any Error) -> Bool {
        let nsError = error as NSError
        if (-1206 ... -1200).contains(nsError.code) { return true }  // NSURLErrorSecureConnectionFailed …
        guard nsError.code == NSURLErrorUnknown else { return false }  // a timeout, a refused or lost connection
        let words = nsError.localizedDescription.lowercased()
        return tlsSetupFailures.contains { words.contains($0) }
    }

    /// OpenSSL's and libcurl's words for a TLS failure of the setup (see ``isTLSFailure(_:)``).
    static let tlsSetupFailures = [
        "ssl certificate problem", "certificate verify failed", "no alternative certificate subject name",
        "certificate subject name", "wrong version number", "packet length too long", "unknown protocol",
        "unsupported protocol", "tlsv1 alert", "sslv3 alert", "alert handshake failure", "no shared cipher",
        "unable to get local issuer certificate", "self-signed certificate", "self signed certificate",
        "certificate has expired",
    ]

    /// `GET /api/batches/{id}` for `org`: the server's view of a batch.
    public func fetchBatch(_ id: String, org: String) async throws(FetchError) -> Batch {
        guard let token = tokens[org] else { throw .noToken(org) }
        var request = makeRequest(server, "/api/batches/\(id)")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return try await batch(from: request)
    }

    /// `POST /api/batches` for `org`: the server resolves the filters against its orders table.
    public func createBatch(_ filters: BatchFilters, org: String) async throws(FetchError) -> Batch {
        guard let token = tokens[org] else { throw .noToken(org) }
        var request = makeRequest(server, "/api/batches")
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONEncoder().encode(CreateBatchRequest(filters: filters))
        return try await batch(from: request)
    }

    /// `GET /api/batches` for `org`: the organisation's open batches, oldest first.
    public func openBatches(org: String) async throws(FetchError) -> BatchList {
        guard let token = tokens[org] else { throw .noToken(org) }
        var request = makeRequest(server, "/api/batches")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let list = try await answer(BatchList.self, from: request)
        do {
            try list.validate()
        } catch {
            throw .untrustedAnswer(reason: "\(error.field) \(error.problem)")
        }
        return list
    }

    /// `POST /api/batches/{id}/close` for `org` (a supervisor's): the batch as it now stands.
    public func closeBatch(_ id: String, org: String) async throws(FetchError) -> Batch {
        guard let token = tokens[org] else { throw .noToken(org) }
        var request = makeRequest(server, "/api/batches/\(id)/close")
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{}".utf8)
        return try await batch(from: request)
    }

    /// Sends a request whose answer is a batch.
    private func batch(from request: URLRequest) async throws(FetchError) -> Batch {
        let batch = try await answer(Batch.self, from: request)
        do {
            try batch.validate()
        } catch {
            throw .untrustedAnswer(reason: "\(error.field) \(error.problem)")
        }
        return batch
    }

    /// Sends a request whose 2xx answer is a `T` in JSON.
    private func answer<T: Decodable>(_ type: T.Type, from request: URLRequest) async throws(FetchError) -> T {
        let body: Data
        let response: URLResponse
        do {
            (body, response) = try await reader.fetch(request, on: session, limit: maxAnswerBytes)
        } catch let tooLarge as AnswerReader.TooLarge {
            throw .untrustedAnswer(reason: "it was over \(tooLarge.limit) bytes (queue.maxAnswerBytes)")
        } catch {
            throw .unreachable(server, reason: Self.describe(error))
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw .refused(status: status, reason: Self.refusalReason(body))
        }
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw .refused(status: status, reason: "the server's answer could not be read: \(error)")
        }
    }

    /// Whether something answers at the server's address (`GET /health`), and then whether the
    /// server's database does (`GET /health/ready`), each with a short timeout. Any answer below 500
    /// counts as reachable, and so does a failed TLS handshake: a wrong base URL or certificate is
    /// then found by the next send and shown as needing attention, not hidden as "offline". A 503
    /// `database_unavailable` is a server that answers but cannot take work now; a 503 `storage_full`
    /// or `storage_failed` one that cannot store anything (``ServerProbe/storageProblem``).
    public func probe(timeout: TimeInterval) async -> ServerProbe {
        guard await isReachable(timeout: timeout) else { return ServerProbe(reachable: false, databaseReady: nil) }
        var request = makeRequest(server, "/health/ready")
        request.timeoutInterval = timeout
        do {
            let (body, response) = try await reader.fetch(request, on: session, limit: maxAnswerBytes)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 500
            if status == 200 { return ServerProbe(reachable: true, databaseReady: true) }
            if status == 503, Self.errorCode(body) == "database_unavailable" {
                return ServerProbe(reachable: true, databaseReady: false)
            }
            // A server that answers but cannot store anything (its disk is full, its storage failed).
            if status == 503, let code = Self.errorCode(body) {
                let message = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String
                if let problem = Attention.serverStorage("\(code): \(message ?? "")") {
                    return ServerProbe(reachable: true, databaseReady: false, storageProblem: problem)
                }
            }
        } catch {}  // unknown: the server answered /health; a slow or missing readiness says nothing more
        return ServerProbe(reachable: true, databaseReady: nil)
    }

    /// `GET /health`: whether something answers at the server's address (the server answers it
    /// without touching its database, so a busy database does not look like a lost network). Any
    /// answer below 500 counts, and so does a failed TLS handshake (see ``probe(timeout:)``).
    public func isReachable(timeout: TimeInterval) async -> Bool {
        var request = makeRequest(server, "/health")
        request.timeoutInterval = timeout
        do {
            let (_, response) = try await reader.fetch(request, on: session, limit: maxAnswerBytes)
            return ((response as? HTTPURLResponse)?.statusCode ?? 500) < 500
        } catch {
            return Self.isTLSFailure(error)
        }
    }

    /// `POST /api/stations/heartbeat` for `org`, once: heartbeats are never queued or retried (the
    /// next one replaces a lost one).
    public func sendHeartbeat(_ heartbeat: StationHeartbeat, org: String) async -> HeartbeatOutcome {
        let (server, tokens) = settings.withLock { ($0.server, $0.tokens) }
        guard let token = tokens[org] else { return .refused(status: 0, reason: "no token for \(org)") }
        var request = makeRequest(server, "/api/stations/heartbeat")
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(Timestamp.iso8601(now()), forHTTPHeaderField: Self.clockHeader)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        request.httpBody = try? encoder.encode(heartbeat)
        do {
            let (body, response) = try await reader.fetch(request, on: session, limit: maxAnswerBytes)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if (200..<300).contains(status) {
                // An answer this station cannot read still means the heartbeat was recorded.
                let answer = try? JSONDecoder().decode(HeartbeatAnswer.self, from: body)
                return .recorded(helpCleared: answer?.helpCleared)
            }
            return .refused(status: status, reason: Self.refusalReason(body))
        } catch {
            return .unreachable(Self.describe(error))
        }
    }

    /// Why a refusal says the server refused: the API's `message` (or, when it has none, its error
    /// code), else the start of what came (a proxy's page), at most ``reasonLimit`` characters on one
    /// line (control, format and line-separator characters made spaces), else that nothing said why.
    static func refusalReason(_ body: Data) -> String {
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        let message = object?["message"] as? String
        let code = object?["error"] as? String
        let text =
            if let message, !message.isEmpty { message } else if let code {
                "refused with code \(code.prefix(Self.reasonLimit))"
            } else { String(decoding: body.prefix(Self.reasonLimit * 4), as: UTF8.self) }
        let shown = text.unicodeScalars.prefix(Self.reasonLimit).map { scalar -> Character in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: " "
            default: Character(scalar)
            }
        }
        let line = String(shown).trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? "no reason given (not the ScanPick API's answer: a proxy or another server?)" : line
    }

    /// The most of a refusal's text kept.
    public static let reasonLimit = 300

    private static func errorCode(_ body: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
    }

    private static func describe(_ error: any Error) -> String {
        if let tooLarge = error as? AnswerReader.TooLarge {
            return "the server's answer was over \(tooLarge.limit) bytes (queue.maxAnswerBytes)"
        }
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
