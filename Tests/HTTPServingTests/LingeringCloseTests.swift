import Foundation
import TestSupport
import Testing

@testable import HTTPServing

/// A request refused from its head (before its body is read) closes its connection; the client,
/// still sending the body, must read the refusal rather than a reset, and the server must not hold
/// such a socket for long or read it without end.
@Suite struct LingeringCloseTests {
    /// A server that refuses every request without an `X-Allowed` header from its head, with a
    /// 64 KiB body limit (so a socket lingers for at most 256 KiB) and a short body deadline (so it
    /// lingers for at most that long).
    static func refusingServer(bodyTimeoutSeconds: Int = 1) throws -> HTTPServer {
        var limits = HTTPServerLimits()
        limits.maxBodyBytes = 64 * 1024
        limits.bodyTimeoutSeconds = bodyTimeoutSeconds
        return try HTTPServer(
            listen: ListenAddress(host: "127.0.0.1", port: 0), limits: limits,
            checkHead: { head in head.header("x-allowed") == nil ? .json(401, Array(#"{"error":"no"}"#.utf8)) : nil },
            router: { _ in .now(HTTPResponse(status: 200)) })
    }

    /// Opens a connection (from `source` when given), sends a POST head declaring `declared` body
    /// bytes and the first bytes of that body, and reads the answer's status (the refusal).
    static func refusedPost(port: UInt16, from source: String? = nil, declared: Int = 1000, bodyStart: String = "abc")
        throws -> (connection: RawConnection, status: Int?)
    {
        let connection = try RawConnection(port: port, from: source)
        connection.send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: \(declared)\r\n\r\n\(bodyStart)")
        return (connection, connection.readResponse(timeout: .seconds(5))?.status)
    }

    /// What the client's socket says once the server is done: end of stream, or a reset.
    enum Ending: Equatable { case endOfStream, reset, nothing }

    static func ending(of connection: RawConnection, within timeout: Duration) -> Ending {
        var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return .nothing }
        var byte: UInt8 = 0
        let count = recv(connection.socket, &byte, 1, 0)
        if count == 0 { return .endOfStream }
        return count < 0 && errno == ECONNRESET ? .reset : .nothing
    }

    @Test func aClientSendingTheBodyOfARefusedRequestReadsTheRefusalNotAReset() async throws {
        let server = try Self.refusingServer()
        defer { server.stop() }
        let port = server.address.port
        let (status, sentWhole, ending) = try await onOwnThread {
            let connection = try RawConnection(port: port)
            // As a client library sends: the head and the body at once. The refusal is answered from
            // the head, and libmicrohttpd closes the connection with the body's bytes unread.
            connection.send(
                Array("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n".utf8)
                    + .init(repeating: 0x20, count: 40_000))
            let status = connection.readResponse(timeout: .seconds(5))?.status
            let sentWhole = connection.send([UInt8](repeating: 0x20, count: 20_000))
            shutdown(connection.socket, Int32(SHUT_WR))
            return (status, sentWhole, Self.ending(of: connection, within: .seconds(5)))
        }
        #expect(status == 401)
        #expect(sentWhole)  // without lingering: the rest of the body met a closed socket, a reset
        #expect(ending == .endOfStream)
        #expect(await eventually(5) { server.lingeringConnections == 0 })
    }

    @Test func aLingeringSocketIsReadAtMostFourBodyLimitsThenClosed() async throws {
        let server = try Self.refusingServer()
        defer { server.stop() }
        let port = server.address.port
        let (status, refusedPart) = try await onOwnThread {
            let (connection, status) = try Self.refusedPost(port: port, declared: 10_000_000, bodyStart: "")
            // Too large (413, from the head). 256 KiB are read and dropped; then the socket closes
            // and the rest meets a reset.
            var sent = 0
            while sent < 10_000_000, connection.send([UInt8](repeating: 0x20, count: 65_536)) { sent += 65_536 }
            return (status, sent < 10_000_000)
        }
        #expect(status == 413)
        #expect(refusedPart)
        #expect(await eventually(5) { server.lingeringConnections == 0 })
    }

    @Test func aClientThatTricklesItsBodyIsLetGoAtTheDeadline() async throws {
        let server = try Self.refusingServer(bodyTimeoutSeconds: 2)
        defer { server.stop() }
        let port = server.address.port
        let (status, lingered, letGoAfter) = try await onOwnThread {
            let (connection, status) = try Self.refusedPost(port: port)
            let start = ContinuousClock.now
            // A byte that meets a closed socket brings a reset, which the next send reports.
            let first = connection.trickle(0x20)
            usleep(50_000)
            let lingered = first && connection.trickle(0x20)
            while ContinuousClock.now - start < .seconds(20), connection.trickle(0x20) { usleep(50_000) }
            return (status, lingered, ContinuousClock.now - start)
        }
        #expect(status == 401)
        #expect(lingered)  // without lingering: the first byte after the refusal meets a closed socket
        #expect(letGoAfter < .seconds(15))  // two seconds, and the time for the reset to show
        #expect(await eventually(5) { server.lingeringConnections == 0 })
    }

    @Test func oneClientAddressTakesAtMostEightPlacesAndOthersStillLinger() async throws {
        let server = try Self.refusingServer(bodyTimeoutSeconds: 30)
        defer { server.stop() }
        let port = server.address.port
        let (statuses, lingeringFromOne, otherLingered) = try await onOwnThread {
            // Ten refused requests from one address, each connection left open by its client.
            let fromOne = try (0..<10).map { _ in try Self.refusedPost(port: port, from: "127.0.0.2") }
            let deadline = ContinuousClock.now + .seconds(10)
            while server.lingeringConnections < 8, ContinuousClock.now < deadline { usleep(10_000) }
            usleep(200_000)  // time for a ninth or tenth to be (wrongly) taken in
            let lingeringFromOne = server.lingeringConnections
            let (other, status) = try Self.refusedPost(port: port, from: "127.0.0.3")
            while server.lingeringConnections < lingeringFromOne + 1, ContinuousClock.now < deadline { usleep(10_000) }
            let otherLingered = server.lingeringConnections == lingeringFromOne + 1
            withExtendedLifetime((fromOne, other)) {}
            return (fromOne.map(\.1) + [status], lingeringFromOne, otherLingered)
        }
        #expect(statuses == Array(repeating: 401, count: 11))
        #expect(lingeringFromOne == 8)
        #expect(otherLingered)
    }

    @Test func aRefusedRequestWithoutABodyLeavesNothingLingering() async throws {
        let server = try Self.refusingServer(bodyTimeoutSeconds: 30)
        defer { server.stop() }
        let port = server.address.port
        let (status, ending, lingering) = try await onOwnThread {
            let connection = try RawConnection(port: port)
            let status = connection.exchange("GET /x HTTP/1.1\r\nHost: x\r\n\r\n").0?.status
            let ending = Self.ending(of: connection, within: .seconds(5))
            // The client keeps its side open: a socket wrongly lingering would be counted for 5 s.
            usleep(300_000)
            return (status, ending, server.lingeringConnections)
        }
        #expect(status == 401)
        #expect(ending == .endOfStream)
        #expect(lingering == 0)
    }
}
