/// `POST /api/stations/{name}/help/clear`'s body: the call for help the shift lead has seen to,
/// named by its `since` (a newer call of the same station is not cleared by it).
public struct ClearHelpRequest: Codable, Sendable, Equatable, ValidatedRequest {
    public var since: String

    public init(since: String) { self.since = since }

    public func validate() throws(FieldError) {
        try FieldRules.text(since, field: "since")
    }
}

/// `POST /fleet/session`'s body: the organisation's token, exchanged once for the fleet page's
/// session cookie (the token itself is never the cookie, nor kept by the page).
public struct FleetSignInRequest: Codable, Sendable, Equatable, ValidatedRequest {
    public var token: String

    public init(token: String) { self.token = token }

    /// The longest token a sign-in may send (tokens are 48 characters; hashes are taken of nothing longer).
    public static let maxTokenLength = 512

    public func validate() throws(FieldError) {
        try FieldRules.text(token, field: "token", maxLength: Self.maxTokenLength)
    }
}

/// `POST /fleet/session`'s answer: which organisation the session shows, and when it ends.
public struct FleetSession: Codable, Sendable, Equatable {
    public var org: String
    /// When the session ends (ISO 8601, the server's clock); the page asks for the token again then.
    public var expiresAt: String

    public init(org: String, expiresAt: String) {
        self.org = org
        self.expiresAt = expiresAt
    }
}
