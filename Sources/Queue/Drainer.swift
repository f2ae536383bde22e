import Foundation
import Lifecycle
import Synchronization

/// Sends queued actions to the server, oldest first, one at a time, each with its original key:
///
/// - 2xx → `sent`, and on to the next;
/// - transient failure → stays `pending`, the pass stops, the next try waits for the backoff;
/// - any other 4xx → `dead` with the server's answer kept, and on to the next (a dead letter never
///   blocks what is behind it);
/// - a refusal of the station itself → the action goes back in line untouched and a pause is shown
///   as needing attention until the config is corrected (``ActionQueue/resume(org:)``) or, on its
///   own, after the backoff cap; nothing goes dead for it. A refusal of one organisation's token
///   (401, 403) or no token for it pauses that organisation's actions only, and the pass goes on
///   with the others in order; anything else (the server's address, TLS, the worker id) pauses the
///   whole queue.
///
/// Only one drainer runs per database at a time (``DrainLock``), across processes. The action is
/// marked `inFlight` durably before it is sent; a drainer that died mid-send leaves it inFlight, and
/// the next pass returns it to pending and sends it again (the server's idempotency makes that safe).
///
///     let drainer = Drainer(queue: queue, transport: transport, backoff: policy)
///     let pass = try await drainer.drainPass()
public final class Drainer: Sendable {
    public let queue: ActionQueue
    private let transport: any ActionTransport
    private let backoff: BackoffPolicy
    private let lockPath: String
    private let now: @Sendable () -> Date
    private let unitRandom: @Sendable () -> Double
    private let secondOpinion: SecondOpinion?

    /// Asked about every refusal before it makes a dead letter: returns the outcome to act on, the
    /// refusal itself when it stands (the station asks the server about a batch it says it does not
    /// know, ``PickStation``). A throw fails the pass, and the action is tried again.
    public typealias SecondOpinion = @Sendable (QueuedAction, DeliveryOutcome) async throws -> DeliveryOutcome

    /// `now` and `unitRandom` are injectable so tests set the time and the jitter instead of sleeping.
    public init(
        queue: ActionQueue, transport: any ActionTransport, backoff: BackoffPolicy,
        now: @escaping @Sendable () -> Date = { Date() },
        unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        secondOpinion: SecondOpinion? = nil
    ) {
        self.queue = queue
        self.transport = transport
        self.backoff = backoff
        self.lockPath = queue.database.path + ".drain-lock"
        self.now = now
        self.unitRandom = unitRandom
        self.secondOpinion = secondOpinion
    }

    /// One pass over the line. `onEvent` hears about each action as it is settled. A person running
    /// `scanpick drain` wants it now: `honouringBackoff: false` sends the head even if it is not due.
    /// The queue's SQLite work runs on the blocking executor, one hop per action (its outcome
    /// recorded and the next head claimed together); only the sending is the caller's.
    public func drainPass(honouringBackoff: Bool = true, onEvent: (DrainEvent) -> Void = { _ in }) async throws
        -> DrainPass
    {
        let run = PassRun(honouringBackoff: honouringBackoff)
        defer { run.state.withLock { $0.lock = nil } }  // the drain lock, released however the pass ends
        var step = try await BlockingExecutor.shared.run { try self.begin(run) }
        while case .deliver(let action) = step {
            var outcome = await transport.deliver(action)
            if case .refused = outcome, let secondOpinion {
                do {
                    outcome = try await secondOpinion(action, outcome)
                } catch {
                    // Not its fault: back in line untouched.
                    _ = try await BlockingExecutor.shared.run { try self.queue.recoverInFlight() }
                    throw error
                }
            }
            let settled = outcome
            let (events, next) = try await BlockingExecutor.shared.run { try self.settle(action, settled, run) }
            for event in events { onEvent(event) }
            step = next
        }
        return run.state.withLock { $0.pass }
    }

    /// One pass's bookkeeping between its hops to the executor (each hop awaits the one before).
    final class PassRun: Sendable {
        struct State {
            var lock: DrainLock?
            var pass = DrainPass(stop: .empty)
            var paused = false
            /// Organisations paused during this pass: their actions wait, the others' go on.
            var held: Set<String> = []
            var lastPause: (attention: Attention, retryAt: Date)?
        }
        let honouringBackoff: Bool
        let state = Mutex(State())
        init(honouringBackoff: Bool) { self.honouringBackoff = honouringBackoff }
    }

    /// What the pass does next.
    enum Step: Sendable {
        case deliver(QueuedAction)
        case finished
    }

    /// Takes the drain lock (another process holding it ends the pass), returns actions a drainer
    /// that died left in flight to the line, and claims the head.
    private func begin(_ run: PassRun) throws -> Step {
        guard let lock = try DrainLock(path: lockPath) else {
            run.state.withLock { $0.pass.stop = .anotherDrainer }
            return .finished
        }
        try queue.recoverInFlight()
        let paused = try !queue.pauses().isEmpty
        run.state.withLock {
            $0.lock = lock
            $0.paused = paused
        }
        return try claim(run)
    }

    /// The next action due, or why the pass ends.
    private func claim(_ run: PassRun) throws -> Step {
        let held = run.state.withLock { $0.held }
        let claim = try queue.claimHead(
            now: now(), honouringBackoff: run.honouringBackoff, longestWait: backoff.cap, skipping: held)
        return run.state.withLock { state in
            switch claim {
            case .due(let due): return .deliver(due)
            case .notDue(let until): state.pass.stop = .notDue(until: until)
            case .paused(let pause): state.pass.stop = .paused(pause.attention, retryAt: pause.retryAt)
            case nil:
                if let lastPause = state.lastPause {
                    state.pass.stop = .paused(lastPause.attention, retryAt: lastPause.retryAt)
                }
            }
            return .finished
        }
    }

    /// Records what became of `action` and claims the next head unless the pass stops here.
    private func settle(_ action: QueuedAction, _ outcome: DeliveryOutcome, _ run: PassRun) throws -> (
        [DrainEvent], Step
    ) {
        let settled = now()
        if run.state.withLock({ $0.paused }), outcome.reachedTheServer {
            // The server took the station, and this organisation's token, again: that is mended.
            try queue.resume(org: action.org)
            let paused = try !queue.pauses().isEmpty
            run.state.withLock { $0.paused = paused }
        }
        switch outcome {
        case .delivered(let status):
            try queue.record(action.id, state: .sent, status: status, error: nil, nextAttemptAt: nil, now: settled)
            run.state.withLock { $0.pass.sent += 1 }
            return ([.sent(action, status: status)], try claim(run))
        case .refused(let status, var reason):
            if reason.hasPrefix("too_old_to_deduplicate:") {
                reason +=
                    ". Support: compare with the server's count for task \(action.pickTaskId); if it was counted, `scanpick queue clear \(action.id)`, if not, `scanpick queue retry \(action.id) --as-new` (a fresh key, recorded in the station log)"
            }
            try queue.record(action.id, state: .dead, status: status, error: reason, nextAttemptAt: nil, now: settled)
            run.state.withLock { $0.pass.dead += 1 }
            return ([.dead(action, status: status, reason: reason)], try claim(run))
        case .transient(let status, let reason, let retryAfter):
            let wait = backoff.delay(afterTries: action.tries + 1, retryAfter: retryAfter, unitRandom: unitRandom())
            let next = settled.addingTimeInterval(wait)
            try queue.record(
                action.id, state: .pending, status: status, error: reason, nextAttemptAt: next, now: settled)
            run.state.withLock { $0.pass.stop = .transient(reason: reason, retryAt: next) }
            return ([.retryLater(action, status: status, reason: reason, retryAt: next)], .finished)
        case .paused(let attention, _) where outcome.concernsOneOrganisation:
            // Its token or its place in the config: only this organisation's actions wait.
            let retryAt = settled.addingTimeInterval(backoff.cap)
            try queue.pause(action.id, org: action.org, because: attention, retryAt: retryAt, now: settled)
            run.state.withLock {
                $0.held.insert(action.org)
                $0.lastPause = (attention, retryAt)
            }
            return ([.paused(action, attention)], try claim(run))
        case .paused(let attention, _):
            let retryAt = settled.addingTimeInterval(backoff.cap)
            try queue.pause(action.id, because: attention, retryAt: retryAt, now: settled)
            run.state.withLock { $0.pass.stop = .paused(attention, retryAt: retryAt) }
            return ([.paused(action, attention)], .finished)
        }
    }
}

/// What one drain pass did and why it stopped.
public struct DrainPass: Sendable, Equatable {
    public var sent = 0
    public var dead = 0
    public var stop: Stop

    public init(sent: Int = 0, dead: Int = 0, stop: Stop) {
        self.sent = sent
        self.dead = dead
        self.stop = stop
    }

    /// Why a pass ended.
    public enum Stop: Sendable, Equatable {
        /// Nothing pending is left.
        case empty
        /// The head of the line waits for its backoff until this time.
        case notDue(until: Date)
        /// The head failed transiently (the network is down for everyone); retry at this time.
        case transient(reason: String, retryAt: Date)
        /// Another process is draining this database.
        case anotherDrainer
        /// The server refused the station itself: the queue waits for a corrected config (or until
        /// `retryAt`, to look again on its own).
        case paused(Attention, retryAt: Date)
    }
}

/// One action settled by a pass.
public enum DrainEvent: Sendable {
    case sent(QueuedAction, status: Int)
    case dead(QueuedAction, status: Int, reason: String)
    case retryLater(QueuedAction, status: Int?, reason: String, retryAt: Date)
    /// The action went back in line untouched: the server refused the station itself.
    case paused(QueuedAction, Attention)
}
