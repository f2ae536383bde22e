import Foundation
import Queue
import Wire

/// What the page shows of the station: the status pill (`GET /api/status`), the scan banner and
/// the frame source's state, and the snapshot the event streams push.
extension StationPage {
    /// What the event streams compare and send: the page's three JSON answers.
    func snapshot() throws -> PageEvents.Snapshot {
        PageEvents.Snapshot(
            pickList: try StationJSON.pickList(station), status: try statusJSON(), worker: try workersJSON())
    }

    /// Shows a scan's outcome on the page (the big banner readable from a metre away).
    public func show(scanAccepted accepted: Bool, message: String) {
        show(accepted ? .accepted : .refused, message: message)
    }

    /// Shows a scan's outcome with its sound and flash, pushed to every listening page at once.
    public func show(_ feedback: StationJSON.Feedback, message: String, task: PickTask? = nil) {
        let seq = scanSequence.withLock { sequence in
            sequence += 1
            return sequence
        }
        let scan = StationJSON.LastScan(
            accepted: feedback == .accepted || feedback == .taskComplete || feedback == .batchComplete,
            message: message, feedback: feedback, seq: seq, pickTask: task)
        lastScan.withLock { $0 = scan }
        if let json = try? Self.encode(scan) { events.publish("scan", json) }
        events.poke()
    }

    /// Shows what the frame source is doing ("camera: not found", "scanner: input ended"), or nil.
    public func show(scanner state: String?) {
        scanner.withLock { $0 = state }
        events.poke()
    }

    /// The pill's JSON; it answers even when the queue cannot be read: unknown counts, and why.
    func statusJSON() throws -> String {
        var noticed = attention.current
        let counts: QueueCounts?
        do {
            counts = try station.queue.counts()
        } catch {
            counts = nil
            noticed.append(StationJSON.databaseFailed(error))
        }
        return try StationJSON.status(
            online: sync.isOnline, serverReady: sync.isServerReady, server: station.transport.server, counts: counts,
            attention: StationJSON.attention(station, others: noticed), scanner: scanner.withLock { $0 },
            lastScan: lastScan.withLock { $0 }, timeZone: TimeZone.current.identifier)
    }
}
