import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServing

/// Streamed answers (Server-Sent Events): sent as written, and bounded per client, so a client
/// that stops reading is let go without holding anything or anyone up.
@Suite struct HTTPStreamTests {
    @Test func aWritePastTheBoundCutsTheStreamAndHoldsNothing() {
        let stream = HTTPStream(maxBufferedBytes: 10)
        #expect(stream.write(Array("12345".utf8)))
        #expect(stream.bufferedBytes == 5)
        #expect(!stream.writeIfDrained(Array("6".utf8)))  // a feed's frame waits for the last one
        #expect(!stream.write(Array("123456".utf8)))  // 11 > 10: cut
        #expect(stream.isFinished)
        #expect(stream.bufferedBytes == 0)
        #expect(!stream.write(Array("1".utf8)))
    }

    @Test func aStreamIsSentAsWrittenAndAClientThatStopsReadingIsCutAlone() async throws {
        let streams = Mutex<[HTTPStream]>([])
        let finished = Mutex(0)
        var limits = HTTPServerLimits()
        limits.idleTimeoutSeconds = 2  // how long a client that reads nothing keeps its socket
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0), limits: limits) { request in
            guard request.path == "/events" else { return HTTPResponse(status: 200, body: Array("ok".utf8)) }
            let stream = HTTPStream(maxBufferedBytes: 64 << 10) { finished.withLock { $0 += 1 } }
            streams.withLock { $0.append(stream) }
            stream.write(Array("event: hello\n\n".utf8))
            return .stream(200, headers: [("Content-Type", "text/event-stream")], stream)
        }
        defer { server.stop() }
        let port = UInt16(server.address.port)
        let request = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n"
        let reader = try RawConnection(port: port)
        reader.send(request)
        #expect(reader.read(until: "event: hello", timeout: .seconds(5)) != nil)
        let stalled = try RawConnection(port: port)
        stalled.send(request)  // and never reads again
        #expect(await eventually { streams.withLock { $0.count } == 2 && server.openStreams == 2 })

        // 16 MB to each: the reader gets every event; the stalled one's bound is passed and it is cut.
        let event = Array(("data: " + String(repeating: "x", count: 16 << 10) + "\n\n").utf8)
        var received = 0
        for _ in 0..<1024 {
            for stream in streams.withLock({ $0 }) { stream.write(event) }
            if reader.read(until: "x\n\n", timeout: .seconds(5)) != nil { received += 1 }
        }
        #expect(received == 1024)
        // Cut at once (its buffer freed); its socket, full, is closed by the idle timeout.
        let stalledStream = try #require(streams.withLock { $0.last })
        #expect(stalledStream.isFinished)
        #expect(stalledStream.bufferedBytes == 0)
        #expect(await eventually { server.openStreams == 1 && finished.withLock { $0 } == 1 })
        // The server still answers everyone else at once.
        let other = try RawConnection(port: port)
        let (answer, _) = other.exchange("GET /other HTTP/1.1\r\nHost: x\r\n\r\n", timeout: .seconds(5))
        #expect(answer?.status == 200)
        let first = try #require(streams.withLock { $0.first })
        #expect(!first.isFinished)
        first.end()
        #expect(await eventually { server.openStreams == 0 && finished.withLock { $0 } == 2 })
    }
}
