import Foundation

/// The base URL of a ScanPick API server as a person writes it (a station config's `server`,
/// `scanpick fleet --server`): `http://` or `https://`, a host, and a port from 1 to 65535 when one
/// is given. Checked where it is written, so that a typo is a config error at start and not a
/// queue that waits as "offline" for a server no request can reach.
///
///     let server = try ServerURL.parse("https://api.example:8443")
public enum ServerURL {
    /// What is wrong with a server URL, worded to follow the setting's name.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The URL `text` names, or a ``Problem`` saying what is wrong with it.
    public static func parse(_ text: String) throws(Problem) -> URL {
        let shown = text.count <= 80 ? text : text.prefix(80) + "…"
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            let host = url.host, !host.isEmpty
        else { throw Problem(description: "must be an http:// or https:// URL, not '\(shown)'") }
        if let port = url.port, !(1...65_535).contains(port) {
            throw Problem(description: "has port \(port), which no server can listen on (1–65535): '\(shown)'")
        }
        return url
    }

    /// `url` as it may be shown (a status, a message, a log line): a password in it replaced by
    /// `***`, so that `http://user:secret@host` is never printed whole.
    ///
    ///     ServerURL.redacted(URL(string: "http://picker:s3cret@host:8080")!)  // "http://picker:***@host:8080"
    public static func redacted(_ url: URL) -> String {
        guard url.password != nil, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        parts.percentEncodedPassword = "***"
        return parts.string ?? "\(url.scheme ?? "http")://(a URL with a password)"
    }
}
