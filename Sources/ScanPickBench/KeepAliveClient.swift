import Foundation

/// A minimal HTTP/1.1 client on one keep-alive TCP connection: enough to load a server without
/// measuring a client library instead. Requests carry `Content-Length`; responses must too.
final class KeepAliveClient {
    private let socket: Int32
    private var buffer: [UInt8] = []

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

    /// One response: status, body and header fields (names in lower case).
    struct Response {
        var status: Int
        var body: [UInt8]
        var headers: [String: String]
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

    /// Reads the next response on the connection.
    func readResponse() throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.firstRange(of: separator)?.upperBound
            if headerEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
            let status = Int(statusLine.split(separator: " ")[1])
        else { throw BenchError("bad response: \(head.prefix(80))") }
        let length =
            lines.first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count < headerEnd! + length { try fill() }
        let body = Array(buffer[headerEnd!..<(headerEnd! + length)])
        buffer.removeFirst(headerEnd! + length)
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, body: body, headers: headers)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchError("connection closed by the server") }
        buffer.append(contentsOf: chunk[..<count])
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
