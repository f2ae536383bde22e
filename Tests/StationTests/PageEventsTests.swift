import Foundation
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
        let publisher = Thread { events.publishUntilStopped() }
        publisher.start()
        defer { events.stop() }
        let stream = try #require(events.subscribe())

        current.withLock { $0.pickList = #"{"n":1}"# }
        events.poke()
        var text = ""
        // The publisher is one thread: once the change is in the stream, all it sent before is too.
        #expect(
            await eventually {
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

/// The address the station prints for its page: one a browser may name (the page answers 421 to
/// a host it does not know, `0.0.0.0` among them).
@Suite struct PageURLTests {
    @Test func aWildcardListenIsPrintedAsAHostTheBrowserMayName() {
        var settings = StationConfiguration.PageSettings()
        settings.listen = ListenAddress(host: "0.0.0.0", port: 0)
        #expect(PageAccess(settings: settings, port: 8377).url == "http://127.0.0.1:8377")
        settings.allowedHosts = ["station-7.example", "10.0.0.7"]
        #expect(PageAccess(settings: settings, port: 8377).url == "http://station-7.example:8377")
        settings.listen = ListenAddress(host: "::1", port: 0)
        #expect(PageAccess(settings: settings, port: 9000).url == "http://[::1]:9000")
        settings.listen = ListenAddress(host: "192.168.1.20", port: 0)
        #expect(PageAccess(settings: settings, port: 9000).url == "http://192.168.1.20:9000")
    }
}
