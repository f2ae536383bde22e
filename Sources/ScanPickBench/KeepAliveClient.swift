import Foundation

/// A minimal HTTP/1.1 client on one keep-alive TCP connection: enough to load a server without
/// measuring a client library instead. Requests carry `Content-Length`; responses must too.
final class KeepAliveClient {
    private let socket: Int32
    /// Bytes received; those in `start..<end` are not read yet.
    private var buffer: [UInt8] = []
    private var start = 0
    private var end = 0

    init(host: String, port: UInt16) throws {
        socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            throw BenchError("cannot connect to \(host):\(port): \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close(socket) }

    /// One response: status, body and header fields (names in lower case, parsed when asked for:
    /// most callers want only the status).
    struct Response {
        var status: Int
        var body: [UInt8]
        /// The header lines, without the status line.
        let head: [UInt8]

        var headers: [String: String] {
            var fields: [String: String] = [:]
            for line in head.split(separator: 10) {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
                let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
                fields[name] = String(decoding: KeepAliveClient.trimmed(line[(colon + 1)...]), as: UTF8.self)
            }
            return fields
        }
    }

    /// Sends one request and returns the response status and body.
    @discardableResult
    func send(method: String, path: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> (
        status: Int, body: [UInt8]
    ) {
        try write(method: method, path: path, headers: headers, body: body)
        let response = try readResponse()
        return (response.status, response.body)
    }

    /// Sends one request without waiting for its answer (read it with ``readResponse()``).
    func write(method: String, path: String, headers: [String: String] = [:], body: [UInt8] = []) throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: bench\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes {
                Foundation.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw BenchError("send failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Reads the next response on the connection. Byte by byte, without Foundation's string
    /// functions: the client shares the machine with the server it measures, so every microsecond
    /// it spends is taken from the server.
    func readResponse() throws -> Response {
        var headEnd: Int?
        var scanned = 0  // bytes after `start` already searched (a fill moves `start`, not this)
        while headEnd == nil {
            headEnd = Self.blankLine(in: buffer, from: start + scanned, to: end)
            if headEnd == nil {
                scanned = max(0, end - start - 3)
                try fill()
            }
        }
        let head = buffer[start..<headEnd!]
        // "HTTP/1.1 200 OK": the three digits after the first space.
        guard let space = head.firstIndex(of: 32), space + 3 < headEnd!,
            let status = Self.number(head[(space + 1)..<(space + 4)])
        else {
            throw BenchError("bad response: \(String(decoding: head.prefix(80), as: UTF8.self))")
        }
        let fields = head[(head.firstIndex(of: 10).map { $0 + 1 } ?? headEnd!)...]
        let length = Self.contentLength(fields) ?? 0
        while end < headEnd! + 4 + length { try fill() }
        let bodyStart = headEnd! + 4
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        let response = Response(status: status, body: body, head: Array(fields))
        start = bodyStart + length
        if start == end { (start, end) = (0, 0) }
        return response
    }

    /// Where the first CRLF CRLF in `bytes[from..<to]` begins.
    private static func blankLine(in bytes: [UInt8], from: Int, to: Int) -> Int? {
        var index = from
        while index + 3 < to {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The value of a `Content-Length` line among `fields`, matched without regard to case.
    private static func contentLength(_ fields: ArraySlice<UInt8>) -> Int? {
        let name = Array("content-length:".utf8)
        for line in fields.split(separator: 10) where line.count > name.count {
            let matches = zip(line.prefix(name.count), name).allSatisfy { $0 | 0x20 == $1 | 0x20 }
            if matches { return number(trimmed(line.dropFirst(name.count))) }
        }
        return nil
    }

    /// Decimal digits as a number (nil if any is not a digit, or there are none or too many).
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count < 16 else { return nil }
        var value = 0
        for digit in digits {
            guard (48...57).contains(digit) else { return nil }
            value = value * 10 + Int(digit - 48)
        }
        return value
    }

    /// `bytes` without leading and trailing spaces, tabs and carriage returns.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == 32 || $0 == 9 || $0 == 13 }
        guard let first = bytes.firstIndex(where: { !blank($0) }) else { return [] }
        let last = bytes.lastIndex(where: { !blank($0) })!
        return bytes[first...last]
    }

    /// Receives more bytes into `buffer` after `end`, first moving what is unread to its front.
    private func fill() throws {
        if start > 0 {
            buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
            (start, end) = (0, end - start)
        }
        if buffer.count - end < Self.chunk { buffer.append(contentsOf: repeatElement(0, count: Self.chunk)) }
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + end, $0.count - end, 0) }
        guard count > 0 else { throw BenchError("connection closed by the server") }
        end += count
    }

    private static let chunk = 65536
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
