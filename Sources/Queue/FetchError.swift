import Foundation
import Wire

/// Why a batch could not be fetched.
public enum FetchError: Error, Sendable, CustomStringConvertible {
    case noToken(String)
    case unreachable(URL, reason: String)
    case refused(status: Int, reason: String)
    /// The server's answer was refused: larger than `queue.maxAnswerBytes`, or holding a field that
    /// breaks the API's own rules (a 500 MB SKU, a location with control characters).
    case untrustedAnswer(reason: String)

    public var description: String {
        switch self {
        case .noToken(let org): "no token is configured for organisation \(org)"
        case .unreachable(let server, let reason): "cannot reach the server at \(ServerURL.redacted(server)): \(reason)"
        case .refused(let status, let reason): "the server answered \(status): \(reason)"
        case .untrustedAnswer(let reason):
            "the server's answer was refused: \(reason) (the station holds what a server sends to the API's own rules)"
        }
    }
}
