import Foundation
import HTTPServing
import Synchronization
import Waking

/// `GET /api/events`: the page's Server-Sent Events. Each client gets the pick list, the pill and
/// the signed-in worker at once, then every change as it happens: a scan's outcome (`scan`), and
/// the pick list (`pickList`), pill (`status`) and worker (`worker`) whenever they differ from what
/// was last sent. A publisher thread builds the snapshots when poked (a scan, a tap, a drain pass,
/// a batch opened) and at least every ``pollInterval`` while someone listens, so a change made by
/// another process (`scanpick tap` in a shell) arrives too; nobody listening costs nothing.
///
/// Bounded: at most ``maxClients`` streams (more get 503), and each holds at most
/// ``maxBufferedBytes`` unsent; a write never waits for a client, so a slow one cannot stall a scan
/// or another client: past its bound it is cut, and its browser reconnects for a fresh snapshot.
///
///     let events = PageEvents { PageEvents.Snapshot(pickList: …, status: …, worker: …) }
///     await BlockingExecutor.runOnOwnThread(named: "page-events") { events.publishUntilStopped() }
///     events.publish("scan", json); events.poke()
final class PageEvents: Sendable {
    /// The most event streams open at once (a station has a screen or two, and a support laptop).
    static let maxClients = 16
    /// What one stream may hold unsent: a few snapshots of the largest pick list.
    static let maxBufferedBytes = 4 << 20
    /// How often the snapshots are compared while someone listens, for changes no poke announced.
    static let pollInterval = Duration.milliseconds(500)
    /// A comment sent this often keeps proxies and the idle timeout from closing a quiet stream.
    static let keepAliveInterval = 10.0

    /// What the page shows, as its JSON API answers it.
    struct Snapshot: Equatable, Sendable {
        var pickList: String
        var status: String
        var worker: String
    }

    private let snapshot: @Sendable () throws -> Snapshot
    private let state = Mutex(State())
    private let wake = WakeUp()

    private struct State {
        var clients: [HTTPStream] = []
        var last: Snapshot?
        var stopped = false
        var lastWrite = Date()
    }

    init(snapshot: @escaping @Sendable () throws -> Snapshot) {
        self.snapshot = snapshot
    }

    /// How many clients listen now.
    var clientCount: Int { state.withLock { $0.clients.count } }

    /// Ends every stream, and ``publishUntilStopped()``.
    func stop() {
        let clients = state.withLock { state in
            state.stopped = true
            defer { state.clients = [] }
            return state.clients
        }
        for client in clients { client.end() }
        wake.ring()
    }

    /// Ends every stream open now, the publisher going on: what let them in has changed (a rotated
    /// secret), so each browser must connect again under the new rules.
    func endStreams() {
        let clients = state.withLock { state in
            defer { state.clients = [] }
            return state.clients
        }
        for client in clients { client.end() }
    }

    /// Something changed: the publisher compares the snapshots now.
    func poke() { wake.ring() }

    /// A new client's stream, its first events the current snapshot; nil when ``maxClients``
    /// already listen (or the page is stopping).
    func subscribe() -> HTTPStream? {
        let stream = HTTPStream(maxBufferedBytes: Self.maxBufferedBytes)
        let current = try? snapshot()  // a failing database is shown by the polled routes too
        let admitted = state.withLock { state -> Bool in
            state.clients.removeAll { $0.isFinished }
            guard !state.stopped, state.clients.count < Self.maxClients else { return false }
            // The only listener has seen this snapshot: the publisher must not send it again (a copy
            // sent late could arrive after a newer scan, a stale pick list behind it).
            if state.clients.isEmpty, let current { state.last = current }
            state.clients.append(stream)
            return true
        }
        guard admitted else { return nil }
        // The browser retries after a second when the stream drops (its default is three).
        stream.write(Array("retry: 1000\n\n".utf8))
        if let current {
            stream.write(Self.frame("pickList", current.pickList))
            stream.write(Self.frame("status", current.status))
            stream.write(Self.frame("worker", current.worker))
        }
        poke()
        return stream
    }

    /// Sends event `name` with `json` to every client now.
    func publish(_ name: String, _ json: String) {
        broadcast(Self.frame(name, json))
    }

    private func broadcast(_ bytes: [UInt8]) {
        let clients = state.withLock { state in
            state.clients.removeAll { $0.isFinished }
            state.lastWrite = Date()
            return state.clients
        }
        // A write only appends to the stream's buffer (or cuts a client past its bound): never blocks.
        for client in clients { client.write(bytes) }
    }

    /// The publisher: compares the snapshots when poked and every ``pollInterval`` while someone
    /// listens, until ``stop()``. Blocks its thread (the page runs it on one of its own).
    func publishUntilStopped() {
        while true {
            wake.wait(timeout: Self.pollInterval)
            let (stopped, listening, quietFor) = state.withLock { state in
                // Nobody listens: the next client gets everything anyway (in the same lock as the
                // look, so a client subscribing in between keeps what it was sent as the last).
                if state.clients.isEmpty { state.last = nil }
                return (state.stopped, !state.clients.isEmpty, Date().timeIntervalSince(state.lastWrite))
            }
            if stopped { return }
            guard listening else { continue }
            guard let current = try? snapshot() else { continue }
            let last = state.withLock { state in
                defer { state.last = current }
                return state.last
            }
            var sent = false
            if current.pickList != last?.pickList {
                publish("pickList", current.pickList)
                sent = true
            }
            if current.status != last?.status {
                publish("status", current.status)
                sent = true
            }
            if current.worker != last?.worker {
                publish("worker", current.worker)
                sent = true
            }
            if !sent, quietFor >= Self.keepAliveInterval { broadcast(Array(": keep-alive\n\n".utf8)) }
        }
    }

    /// One event in the `text/event-stream` form: JSON is one line, so one `data:` line.
    static func frame(_ name: String, _ json: String) -> [UInt8] {
        let line = json.replacingOccurrences(of: "\n", with: " ")
        return Array("event: \(name)\ndata: \(line)\n\n".utf8)
    }
}
