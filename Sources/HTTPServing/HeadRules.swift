/// What every request head must satisfy before its body is read, whatever the application: a `Host`
/// in an HTTP/1.1 request (RFC 9112 section 3.2), one `Content-Length`, no `Content-Length` beside
/// `Transfer-Encoding` (a request two parsers could split differently), and a declared body within
/// the limit.
enum HeadRules {
    static func refusal(
        _ head: HTTPRequest, version: String, declaredBodyBytes: Int, limits: HTTPServerLimits
    ) -> HTTPResponse? {
        if version == "HTTP/1.1", head.header("host") == nil {
            return badRequest("an HTTP/1.1 request must send a Host header")
        }
        for name in ["content-length", "transfer-encoding"] where head.repeatedHeaders.contains(name) {
            return badRequest("the \(name) header was sent more than once")
        }
        if head.header("content-length") != nil, head.header("transfer-encoding") != nil {
            return badRequest("send either Content-Length or Transfer-Encoding, not both")
        }
        if declaredBodyBytes > limits.maxBodyBytes { return tooLarge(limits) }
        return nil
    }

    static func tooLarge(_ limits: HTTPServerLimits) -> HTTPResponse {
        .json(
            413,
            Array(
                #"{"error":"payload_too_large","message":"the request body is over \#(limits.maxBodyBytes) bytes"}"#
                    .utf8
            ))
    }

    private static func badRequest(_ message: String) -> HTTPResponse {
        .json(400, Array(#"{"error":"bad_request","message":"\#(message)"}"#.utf8), headers: [("Connection", "close")])
    }
}
