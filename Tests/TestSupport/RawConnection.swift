import Foundation

/// A TCP connection made by hand, for what URLSession cannot do: connect from a chosen loopback
/// address (127.0.0.2, …), trickle a request a byte at a time, send a malformed request, or time one
/// request exactly.
///
///     let connection = try RawConnection(port: 8080, from: "127.0.0.2")
///     try connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
///     let reply = try connection.readResponse(timeout: .seconds(5))
public final class RawConnection: @unchecked Sendable {
    /// The socket; owned by this connection and closed with it. Used by one thread at a time.
    public let socket: Int32

    /// Connects to `host:port` (IPv4 or IPv6 literal), first binding to `source` when given.
    public init(port: UInt16, host: String = "127.0.0.1", from source: String? = nil) throws {
        let isIPv6 = host.contains(":")
        socket = Glibc.socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawConnectionError("socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = Self.address(source, port: 0)
            let bound = local.withUnsafeMutableBytes {
                bind(socket, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
            }
            guard bound == 0 else { throw RawConnectionError("bind \(source): \(String(cString: strerror(errno)))") }
        }
        var remote = Self.address(host, port: port)
        let connected = remote.withUnsafeMutableBytes {
            connect(socket, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            // No close here: `socket` is set, so `deinit` runs and closes it (closing twice could
            // close a descriptor another test has just been given the number of).
            throw RawConnectionError("connect \(host):\(port): \(reason)")
        }
    }

    deinit { close(socket) }

    /// Sends all of `text`; false if the peer has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Sends one byte without waiting; false if the peer has closed or reset the connection.
    public func trickle(_ byte: UInt8) -> Bool {
        var value = byte
        let sent = Glibc.send(socket, &value, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        return sent == 1 || (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    }

    /// Whether the peer has closed the connection (end of file or reset) within `timeout`.
    public func closedByPeer(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            guard wait(until: deadline) else { return false }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { return true }
        }
        return false
    }

    /// An answer as read off the wire.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
        }
    }

    /// Reads one response (with a Content-Length body); nil if the connection closed first or
    /// nothing complete came within `timeout`.
    public func readResponse(timeout: Duration) -> Response? {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let response = Self.parse(received) { return response }
            guard wait(until: deadline) else { return nil }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            received += buffer[..<count]
        }
    }

    /// Reads what arrives (a streamed answer: Server-Sent Events) until the text read since the
    /// last call holds `marker`, and returns that text; nil if the connection closed first or the
    /// marker did not come within `timeout`. Bytes read past the marker stay for the next call.
    public func read(until marker: String, timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let text = String(decoding: pending, as: UTF8.self)
            if let range = text.range(of: marker) {
                let upTo = String(text[..<range.upperBound])
                pending = Array(text[range.upperBound...].utf8)
                return upTo
            }
            guard wait(until: deadline) else { return nil }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            pending += buffer[..<count]
        }
    }

    /// Bytes ``read(until:timeout:)`` read past its marker.
    private var pending: [UInt8] = []

    /// Sends `request` and times how long its whole answer takes to arrive.
    public func exchange(_ request: String, timeout: Duration = .seconds(10)) -> (Response?, Duration) {
        let start = ContinuousClock.now
        guard send(request) else { return (nil, ContinuousClock.now - start) }
        let response = readResponse(timeout: timeout)
        return (response, ContinuousClock.now - start)
    }

    private func wait(until deadline: ContinuousClock.Instant) -> Bool {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            min(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000, 60_000))
        return poll(&descriptor, 1, max(1, milliseconds)) > 0
    }

    private static func parse(_ bytes: [UInt8]) -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = end + 4
        guard bytes.count >= bodyStart + length else { return nil }
        return Response(status: status, headers: headers, body: Array(bytes[bodyStart..<bodyStart + length]))
    }

    private static func address(_ host: String, port: UInt16) -> [UInt8] {
        if host.contains(":") {
            var v6 = sockaddr_in6()
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &v6.sin6_addr)
            return withUnsafeBytes(of: v6) { Array($0) }
        }
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, host, &v4.sin_addr)
        return withUnsafeBytes(of: v4) { Array($0) }
    }
}

/// A raw connection that could not be made.
public struct RawConnectionError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
