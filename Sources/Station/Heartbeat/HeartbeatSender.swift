import Foundation
import JSONText
import Lifecycle
import Logging
import Queue
import Synchronization
import Timestamps
import Waking
import Wire

/// Sends the station's heartbeat (`POST /api/stations/heartbeat`) to each organisation it works for,
/// every `heartbeatSeconds` while the server is reachable. Heartbeats are never queued or retried:
/// the newest matters, and a lost one is replaced by the next. It looks every second (cheap: a lock
/// and a comparison), so a station back in range reports within a second of the network
/// monitor seeing the server, and a call for help made or cancelled goes within a second too. A
/// refusal is logged once per change, never once per heartbeat; an answer saying the shift lead
/// cleared the call ends it (``HelpCall``).
///
/// A service of the station's group: its stop waits for a heartbeat on its way (it never cancels
/// URLSession).
///
///     let sender = HeartbeatSender(station: station, sync: sync, attention: board, metrics: metrics, logger: logger)
///     let group = ServiceGroup([sync.monitor, sync, sender], logger: logger)
final class HeartbeatSender: Service {
    let name = "heartbeat"
    private let station: PickStation
    private let sync: SyncService
    private let attention: AttentionBoard
    private let metrics: StationMetrics
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var nextDue = Date.distantPast
        var stopped = false
        /// The last outcome said in the log, per organisation.
        var lastOutcome: [String: HeartbeatOutcome] = [:]
        /// ``HelpCall/changes`` when the last round began.
        var helpChanges = 0
    }

    /// Ends the wait for the next look (a stop).
    private let wake = WakeUp()

    init(
        station: PickStation, sync: SyncService, attention: AttentionBoard, metrics: StationMetrics,
        logger: Logger
    ) {
        self.station = station
        self.sync = sync
        self.attention = attention
        self.metrics = metrics
        self.logger = logger
    }

    /// Looks once a second whether a round is due and sends it, until cancelled; a round on its way
    /// when the stop comes is finished (bounded by the request timeout), never cancelled mid-request.
    func run() async {
        await withShieldedCancellation { [self] in
            while !state.withLock({ $0.stopped }) {
                if isDue() { await sendAll() }
                await wake.sleep(for: .seconds(1))
            }
        } onCancel: { [self] in
            state.withLock { $0.stopped = true }
            wake.ring()
        }
    }

    /// Whether a round is due now: the server is reachable, and `heartbeatSeconds` have passed since
    /// the last one or the call for help changed.
    private func isDue() -> Bool {
        guard sync.isOnline else { return false }
        let interval = TimeInterval(station.configuration.heartbeatSeconds)
        let helpChanges = station.help.changes
        return state.withLock { state -> Bool in
            guard !state.stopped, Date() >= state.nextDue || helpChanges != state.helpChanges else { return false }
            state.nextDue = Date().addingTimeInterval(interval)
            state.helpChanges = helpChanges
            return true
        }
    }

    private func sendAll() async {
        for org in station.configuration.organisations.keys.sorted() {
            let outcome: HeartbeatOutcome
            do {
                let beat = try await BlockingExecutor.shared.run { [self] in try self.heartbeat(for: org) }
                outcome = await station.transport.sendHeartbeat(beat, org: org)
            } catch {
                outcome = .refused(status: 0, reason: "the station could not read its queue: \(error)")
            }
            if case .recorded(let cleared?) = outcome { station.help.cleared(since: cleared) }
            note(outcome, org: org)
        }
    }

    /// The heartbeat for `org`: its own actions' counts and pauses, what the station shows, who
    /// picks (their name as the sign-in or the config's `workers` has it), how far the open batch
    /// is, and the call for help.
    func heartbeat(for org: String) throws -> StationHeartbeat {
        let configuration = station.configuration
        // Who the station's actions name now: nobody while a sign-in is required and not made.
        let worker = try station.workers.current()
        let workerId = worker?.id ?? (configuration.requireSignIn ? nil : configuration.worker)
        let workerName = (worker?.name ?? workerId.flatMap(station.workers.name(of:))).map {
            StationHeartbeat.fitted($0, maxLength: StationHeartbeat.maxNameLength)
        }
        let counts = try station.queue.counts(org: org)
        let pauses = try station.queue.pauses().filter { $0.org == nil || $0.org == org }.map(\.attention)
        let now = Date()
        let stuck = try station.queue.stuckAction(now: now, after: configuration.queue.stuckAfter)
        let items = (pauses + (stuck.map { [$0.attention(now: now)] } ?? []) + attention.current).prefix(
            StationHeartbeat.maxAttentionItems
        ).map {
            StationHeartbeat.Item(
                code: StationHeartbeat.fitted($0.code, maxLength: StationHeartbeat.maxCodeLength),
                message: StationHeartbeat.fitted($0.message, maxLength: StationHeartbeat.maxMessageLength))
        }
        let open = try station.cache.openBatch()
        var progress: StationHeartbeat.Progress?
        if open?.org == org {
            let tasks = try station.cache.tasks()
            let total = min(tasks.count, StationHeartbeat.progressRange.upperBound)
            progress = StationHeartbeat.Progress(done: min(tasks.filter(\.isComplete).count, total), total: total)
        }
        return StationHeartbeat(
            station: configuration.station, heartbeatSeconds: configuration.heartbeatSeconds,
            version: ScanPickVersion.current, online: true, pending: counts.pending, inFlight: counts.inFlight,
            dead: counts.dead, oldestPendingAt: counts.oldestUnsentAt, lastSyncAt: counts.lastSyncAt,
            camera: metrics.camera.rawValue,
            scanners: min(metrics.scannersReady, StationHeartbeat.scannerRange.upperBound),
            batchId: open?.org == org ? open?.batchId : nil, workerId: workerId, workerName: workerName,
            lastActionAt: counts.newestQueuedAt, batchProgress: progress, help: station.help.current,
            attention: Array(items),
            stuck: stuck.map {
                StationHeartbeat.Stuck(
                    actionId: $0.id,
                    label: StationHeartbeat.fitted($0.label, maxLength: StationHeartbeat.Stuck.maxLabelLength),
                    lastStatus: $0.lastStatus, failingSince: Timestamp.iso8601($0.failingSince),
                    tries: min($0.tries, StationHeartbeat.countRange.upperBound),
                    behind: min($0.behind, StationHeartbeat.countRange.upperBound))
            })
    }

    /// Logs a refusal or a recovery once, when it changes.
    private func note(_ outcome: HeartbeatOutcome, org: String) {
        var outcome = outcome
        if case .recorded = outcome { outcome = .recorded(helpCleared: nil) }  // the same outcome, for the log
        let changed = state.withLock { state -> Bool in
            defer { state.lastOutcome[org] = outcome }
            return state.lastOutcome[org] != outcome
                && !(state.lastOutcome[org] == nil && outcome == .recorded(helpCleared: nil))
        }
        guard changed else { return }
        let event =
            switch outcome {
            case .recorded: "heartbeat_recorded"
            case .refused: "heartbeat_refused"
            case .unreachable: "heartbeat_unreachable"
            }
        switch outcome {
        case .recorded: logger.event(event, ["org": .string(org)])
        case .refused(let status, let reason):
            logger.event(event, ["org": .string(org), "status": .number(status), "message": .string(reason)])
        case .unreachable(let reason): logger.event(event, ["org": .string(org), "message": .string(reason)])
        }
    }
}
