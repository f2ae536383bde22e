import Digest
import HTTPServing

/// Who may read `GET /metrics`: anyone where its listener is loopback or the config allows it
/// (`metrics.allowUnauthenticated`), else a scraper with a bearer token whose SHA-256 is one of
/// `metrics.tokenSha256`. The metrics span every organisation, so no organisation's token opens them.
struct MetricsAccess: Sendable {
    let openWithoutToken: Bool
    let tokenHashes: Set<String>

    static let tokenRequired = HTTPError(
        status: 401, code: "metrics_token_required",
        message:
            "send 'Authorization: Bearer TOKEN' with a metrics token (its SHA-256 in the server config's metrics.tokenSha256)"
    )

    func check(_ request: HTTPRequest) throws(HTTPError) {
        if openWithoutToken { return }
        guard let header = request.header("authorization"), header.lowercased().hasPrefix("bearer ") else {
            throw Self.tokenRequired
        }
        let token = header.dropFirst("bearer ".count).drop { $0 == " " }
        guard !token.isEmpty, tokenHashes.contains(SHA256.hex(of: String(token))) else { throw Self.tokenRequired }
    }
}
