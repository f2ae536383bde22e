import Digest

/// Who may read `GET /metrics`, on the server and on a station alike: anyone where its listener is
/// loopback or the config allows it (`metrics.allowUnauthenticated`), else a scraper with a bearer
/// token whose SHA-256 is one of the config's `metrics.tokenSha256`. The metrics span every
/// organisation, so no organisation's token opens them.
///
///     let access = MetricsAccess(openWithoutToken: false, tokenHashes: ["<64 hex>"], config: "the station config")
///     try access.check(request)   // 401 metrics_token_required
public struct MetricsAccess: Sendable {
    public let openWithoutToken: Bool
    public let tokenHashes: Set<String>
    /// The refusal, naming the config whose `metrics.tokenSha256` holds the scrapers' hashes.
    private let refusal: HTTPError

    public init(openWithoutToken: Bool, tokenHashes: Set<String>, config: String = "the server config") {
        self.openWithoutToken = openWithoutToken
        self.tokenHashes = tokenHashes
        refusal = HTTPError(
            status: 401, code: "metrics_token_required",
            message:
                "send 'Authorization: Bearer TOKEN' with a metrics token (its SHA-256 in \(config)'s metrics.tokenSha256)"
        )
    }

    public func check(_ request: HTTPRequest) throws(HTTPError) {
        if openWithoutToken { return }
        guard let header = request.header("authorization"), header.lowercased().hasPrefix("bearer ") else {
            throw refusal
        }
        let token = header.dropFirst("bearer ".count).drop { $0 == " " }
        guard !token.isEmpty, tokenHashes.contains(SHA256.hex(of: String(token))) else { throw refusal }
    }
}
