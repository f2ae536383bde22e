import Synchronization
import TestSupport
import Testing

@testable import HTTPServing
@testable import Station

/// The page's event stream in-process: what one listener's stream holds, byte for byte.
@Suite struct PageEventsTests {
    /// A listener gets the snapshot when it subscribes and then only changes: the publisher never
    /// sends that first snapshot again (a copy sent late once arrived after a newer scan's event,
    /// a stale pick list behind it).
    @Test func aNewListenerGetsEachSnapshotOnce() async throws {
        let current = Mutex(PageEvents.Snapshot(pickList: #"{"n":0}"#, status: #"{"s":0}"#, worker: #"{"w":0}"#))
        let events = PageEvents { current.withLock { $0 } }
        events.start()
        defer { events.stop() }
        let stream = try #require(events.subscribe())

        current.withLock { $0.pickList = #"{"n":1}"# }
        events.poke()
        var text = ""
        // The publisher is one thread: once the change is in the stream, all it sent before is too.
        #expect(
            await eventually(10) {
                text += Self.take(stream)
                return text.contains(#"{"n":1}"#)
            })
        #expect(Self.count("event: pickList", in: text) == 2, "\(text)")
        #expect(Self.count("event: status", in: text) == 1, "\(text)")
        #expect(Self.count("event: worker", in: text) == 1, "\(text)")
    }

    /// What the stream holds unsent, taken as libmicrohttpd would take it.
    private static func take(_ stream: HTTPStream) -> String {
        var buffer = [CChar](repeating: 0, count: 64 << 10)
        let count = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, capacity: $0.count) }
        guard count > 0 else { return "" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }
}
