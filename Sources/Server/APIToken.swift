import Digest
import Foundation

/// A new bearer token for an organisation, and the hash the server's config keeps of it (the
/// server stores only `organisations.ORG.tokenSha256`, so a leaked config leaks no token).
///
///     let token = APIToken()
///     print(token.secret, token.sha256)
public struct APIToken: Sendable {
    /// `spk_` and 43 URL-safe base64 characters: 256 random bits from getrandom(2).
    public let secret: String
    /// The lower-case hex SHA-256 of ``secret``, for the server config.
    public var sha256: String { SHA256.hex(of: secret) }

    public init() { secret = "spk_" + Self.random256Bits() }

    /// 256 random bits from getrandom(2) (cryptographically secure), as 43 URL-safe base64 characters.
    static func random256Bits() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
