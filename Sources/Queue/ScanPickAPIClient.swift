import Foundation
import Wire

/// What a station asks of the ScanPick API: its queued actions (``ActionTransport``), the batches
/// it opens, creates and closes, its heartbeats and the probes of the network monitor. The queue
/// and the station see only this; `ScanPickClient` speaks it over HTTP, and tests speak it in
/// memory.
///
///     let batch = try await client.fetchBatch("batch-1", org: "acme")
public protocol ScanPickAPIClient: ActionTransport {
    /// The server requests go to (for what the station shows: its status, its messages).
    var server: URL { get }
    /// Sends later requests to `server` with `tokens` (a corrected config; requests already under
    /// way finish as they were).
    func update(server: URL, tokens: [String: String])
    /// `GET /api/batches/{id}`: the server's view of a batch.
    func fetchBatch(_ id: String, org: String) async throws(FetchError) -> Batch
    /// `POST /api/batches`: a batch of the organisation's open order lines that `filters` match.
    func createBatch(_ filters: BatchFilters, org: String) async throws(FetchError) -> Batch
    /// `GET /api/batches`: the organisation's open batches, oldest first.
    func openBatches(org: String) async throws(FetchError) -> BatchList
    /// `POST /api/batches/{id}/close` (a supervisor's): the batch as it now stands.
    func closeBatch(_ id: String, org: String) async throws(FetchError) -> Batch
    /// Whether the server answers (`GET /health`), and whether its database does, within `timeout`.
    func probe(timeout: TimeInterval) async -> ServerProbe
    /// `POST /api/stations/heartbeat`, once: never queued or retried.
    func sendHeartbeat(_ heartbeat: StationHeartbeat, org: String) async -> HeartbeatOutcome
}
