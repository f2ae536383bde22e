import Foundation
import Queue
import Synchronization
import Wire

/// The ScanPick API in memory, for unit tests of the drainer and the station that need no server
/// process: it keeps batches, applies each delivered action once per idempotency key (a replay is
/// answered as delivered and counted nothing), answers as told (``answerNext(_:)``, ``reachable``)
/// and records what it was sent. End-to-end tests keep the real `scanpick serve`.
///
///     let api = InMemoryAPI(tokens: ["acme": "t"])
///     api.add(batch, org: "acme")
///     let station = try PickStation(configuration: config, client: api)
public final class InMemoryAPI: ScanPickAPIClient {
    private struct State {
        var server: URL
        var tokens: [String: String]
        var batches: [String: (org: String, batch: Batch)] = [:]
        var keys: Set<String> = []
        var delivered: [QueuedAction] = []
        var attempts = 0
        var scripted: [DeliveryOutcome] = []
        /// The next deliveries are applied, but their answers lost on the way back.
        var answersToLose = 0
        var reachable = true
        var heartbeats: [(org: String, heartbeat: StationHeartbeat)] = []
    }

    private let state: Mutex<State>

    public init(server: URL = URL(string: "http://in-memory.invalid")!, tokens: [String: String]) {
        state = Mutex(State(server: server, tokens: tokens))
    }

    /// Adds (or replaces) a batch of `org`.
    public func add(_ batch: Batch, org: String) { state.withLock { $0.batches[batch.id] = (org, batch) } }

    /// The next deliveries get these outcomes, in order, instead of being applied (a delivered one
    /// is applied as well).
    public func answerNext(_ outcomes: [DeliveryOutcome]) { state.withLock { $0.scripted += outcomes } }

    /// The next `count` deliveries are applied, and their answers lost (a connection cut after the
    /// server committed): the station sees a transient failure and sends them again.
    public func loseNextAnswers(_ count: Int = 1) { state.withLock { $0.answersToLose += count } }

    /// Whether the server answers at all (false: every request fails as a network would).
    public var reachable: Bool {
        get { state.withLock { $0.reachable } }
        set { state.withLock { $0.reachable = newValue } }
    }

    /// The actions applied, once each, in the order they came.
    public var delivered: [QueuedAction] { state.withLock { $0.delivered } }
    /// Every delivery asked for, replays and refusals included.
    public var attempts: Int { state.withLock { $0.attempts } }
    /// The heartbeats received.
    public var heartbeats: [(org: String, heartbeat: StationHeartbeat)] { state.withLock { $0.heartbeats } }
    /// The batch as the server now has it.
    public func batch(_ id: String) -> Batch? { state.withLock { $0.batches[id]?.batch } }

    public var server: URL { state.withLock { $0.server } }

    public func update(server: URL, tokens: [String: String]) {
        state.withLock {
            $0.server = server
            $0.tokens = tokens
        }
    }

    public func deliver(_ action: QueuedAction) async -> DeliveryOutcome {
        state.withLock { state in
            state.attempts += 1
            guard state.reachable else {
                return .transient(status: nil, reason: "cannot connect to the server (in memory)", retryAfter: nil)
            }
            guard state.tokens[action.org] != nil else {
                return .paused(Attention(code: "no_token", message: "no token for \(action.org)"), status: nil)
            }
            if state.answersToLose > 0 {
                state.answersToLose -= 1
                Self.apply(action, to: &state)
                return .transient(status: nil, reason: "the connection was lost", retryAfter: nil)
            }
            if !state.scripted.isEmpty {
                let outcome = state.scripted.removeFirst()
                if case .delivered = outcome { Self.apply(action, to: &state) }
                return outcome
            }
            Self.apply(action, to: &state)
            return .delivered(status: 200)
        }
    }

    /// Applies `action` unless its key was applied before (the server's idempotency).
    private static func apply(_ action: QueuedAction, to state: inout State) {
        guard state.keys.insert(action.idempotencyKey).inserted else { return }
        state.delivered.append(action)
        let body = (try? JSONSerialization.jsonObject(with: Data(action.payload))) as? [String: Any] ?? [:]
        for (id, entry) in state.batches {
            var batch = entry.batch
            if action.kind == .closeBatch, id == action.pickTaskId {
                batch.status = "closed"
            }
            for index in batch.tasks.indices where batch.tasks[index].id == action.pickTaskId {
                switch action.kind {
                case .pick: batch.tasks[index].qtyPicked += body["qty"] as? Int ?? 0
                case .setQty: batch.tasks[index].qtyPicked = body["to"] as? Int ?? batch.tasks[index].qtyPicked
                case .scan: batch.tasks[index].qtyPicked += body["qty"] as? Int ?? 1
                case .short: batch.tasks[index].qtyShort += body["qty"] as? Int ?? 0
                case .closeBatch: break
                }
            }
            state.batches[id] = (entry.org, batch)
        }
    }

    private func stored(_ id: String, org: String) throws(FetchError) -> Batch {
        let (reachable, entry, hasToken, server) = state.withLock {
            ($0.reachable, $0.batches[id], $0.tokens[org] != nil, $0.server)
        }
        guard reachable else { throw .unreachable(server, reason: "cannot connect to the server (in memory)") }
        guard hasToken else { throw .noToken(org) }
        guard let entry, entry.org == org else {
            throw .refused(status: 404, reason: "not_found: batch \(id) does not exist")
        }
        return entry.batch
    }

    public func fetchBatch(_ id: String, org: String) async throws(FetchError) -> Batch { try stored(id, org: org) }

    public func createBatch(_ filters: BatchFilters, org: String) async throws(FetchError) -> Batch {
        throw .refused(status: 422, reason: "no_matching_lines: the in-memory API makes no batches")
    }

    public func openBatches(org: String) async throws(FetchError) -> BatchList {
        let (reachable, server, batches) = state.withLock { ($0.reachable, $0.server, $0.batches) }
        guard reachable else { throw .unreachable(server, reason: "cannot connect to the server (in memory)") }
        let open = batches.values.filter { $0.org == org && !$0.batch.isClosed }.map(\.batch).sorted { $0.id < $1.id }
        return BatchList(
            batches: open.map { batch in
                BatchSummary(
                    id: batch.id, status: batch.status ?? "open", createdAt: "2026-12-01T00:00:00.000Z", closedAt: nil,
                    tasks: batch.tasks.count,
                    complete: batch.tasks.filter { $0.qtyPicked + $0.qtyShort >= $0.qtyRequired }.count)
            })
    }

    public func closeBatch(_ id: String, org: String) async throws(FetchError) -> Batch {
        var batch = try stored(id, org: org)
        batch.status = "closed"
        add(batch, org: org)
        return batch
    }

    public func probe(timeout: TimeInterval) async -> ServerProbe {
        let reachable = self.reachable
        return ServerProbe(reachable: reachable, databaseReady: reachable ? true : nil)
    }

    public func sendHeartbeat(_ heartbeat: StationHeartbeat, org: String) async -> HeartbeatOutcome {
        state.withLock { state in
            guard state.reachable else { return .unreachable("cannot connect to the server (in memory)") }
            state.heartbeats.append((org, heartbeat))
            return .recorded(helpCleared: nil)
        }
    }
}
