import JSONText

/// A refusal or failure to answer a request with: an HTTP status, a stable machine code and a
/// sentence for people, sent as `{"error": code, "message": sentence}`. Handlers of both servers
/// throw it; each server's domain errors map to one in a single table.
///
///     throw HTTPError(status: 404, code: "not_found", message: "batch b7 does not exist")
public struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// For a 405: the methods the path accepts (sent as `Allow`).
    public var allowedMethods: [String]

    public init(status: Int, code: String, message: String, allowedMethods: [String] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.allowedMethods = allowedMethods
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// The error as a JSON response (with `Allow` for a 405).
    public var response: HTTPResponse {
        var body = JSONObjectWriter()
        body.add("error", string: code)
        body.add("message", string: message)
        let allow = allowedMethods.isEmpty ? [] : [("Allow", allowedMethods.joined(separator: ", "))]
        return .json(status, body.finishedBytes(), headers: allow)
    }

    /// 405 for a path that exists with other methods.
    public static func methodNotAllowed(_ allowed: [String]) -> HTTPError {
        HTTPError(
            status: 405, code: "method_not_allowed", message: "use \(allowed.joined(separator: " or ")) here",
            allowedMethods: allowed)
    }

    /// 404 for a path no route has: its own code, so a client can tell a wrong base URL from a
    /// resource that does not exist.
    public static func noSuchRoute(_ path: String) -> HTTPError {
        HTTPError(status: 404, code: "no_such_route", message: "there is no route \(path)")
    }
}
