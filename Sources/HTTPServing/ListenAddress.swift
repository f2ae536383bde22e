import Foundation

/// A `HOST:PORT` to listen on: an IPv4 or IPv6 literal (`[::1]:8080`) or `localhost`; port 0 picks
/// a free port.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; the error says what is wrong with the text.
    public init(parsing text: String) throws(ListenAddressError) {
        guard let colon = text.lastIndex(of: ":") else {
            throw ListenAddressError(text: text, reason: "expected HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let port = UInt16(text[text.index(after: colon)...]) else {
            throw ListenAddressError(text: text, reason: "the port must be a number from 0 to 65535")
        }
        if host == "localhost" { host = "127.0.0.1" }
        self.init(host: host.isEmpty ? "0.0.0.0" : host, port: port)
        guard socketAddress() != nil else {
            throw ListenAddressError(text: text, reason: "'\(host)' is not an IPv4 or IPv6 address")
        }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the address only accepts connections from this machine.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// The address as a `sockaddr_in`/`sockaddr_in6`, in bytes, or nil if `host` is not a literal.
    func socketAddress() -> [UInt8]? {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            return withUnsafeBytes(of: v4) { Array($0) }
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            return withUnsafeBytes(of: v6) { Array($0) }
        }
        return nil
    }
}

/// A listen address that cannot be used, with why.
public struct ListenAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "'\(text)' is not a listen address: \(reason)" }
}
