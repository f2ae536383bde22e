/// A queue operation that cannot be done, with why.
public enum QueueError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchAction(Int)
    case notDead(Int, ActionState)
    /// Only a pending action can be parked (one in flight is being sent now; a dead one already is).
    case notPending(Int, ActionState)
    /// Parking this action would send it after a newer one it does not commute with (why).
    case wouldReorder(Int, String)
    case storage(String)
    /// The queue database at this path failed its integrity check, with what SQLite found.
    case damaged(String, String)
    /// Line N of an import file is not an action this queue can take.
    case badImport(line: Int, String)
    /// An action whose payload is not a JSON object carrying its key (its label).
    case badPayload(String)
    /// Importing now would send old work after new (what, and what to do first).
    case importOutOfOrder(String)
    /// The drain lock file at this path cannot be opened or locked, for this reason (not because
    /// another drainer holds it).
    case drainLock(String, String)

    public var description: String {
        switch self {
        case .damaged(let path, let findings):
            """
            the queue database \(path) is damaged (\(findings.prefix(300))); it was left as it is. Run \
            `scanpick queue salvage --to FILE` to save every readable unsent action with its key (it lists any \
            row it cannot read: compare those with the server), move \(path) (and its -wal and -shm files) \
            aside, then `scanpick queue import FILE` into a fresh queue
            """
        case .badImport(let line, let problem): "line \(line) of the import file: \(problem); nothing was imported"
        case .importOutOfOrder(let problem): "\(problem); nothing was imported"
        case .badPayload(let label):
            "\(label) was not queued: its body is not a JSON object carrying its idempotency key (a bug: please report it)"
        case .drainLock(let path, let reason):
            "the queue's drain lock \(path) cannot be taken (\(reason)), so nothing is sent: make it a file this station's user can write (`chown USER \(path)` and `chmod 600 \(path)`, or remove it if it is not a file); the queue is kept"
        case .noSuchAction(let id): "there is no action #\(id) in the queue (see `scanpick queue`)"
        case .notDead(let id, let state):
            state == .pending
                ? "action #\(id) is pending, not dead: only dead letters can be retried or cleared (one a pause holds back can first be parked: scanpick queue park \(id))"
                : "action #\(id) is \(state.rawValue), not dead: only dead letters can be retried or cleared"
        case .notPending(let id, .inFlight):
            "action #\(id) is being sent right now: park it once this try has ended (see scanpick queue)"
        case .notPending(let id, let state):
            "action #\(id) is \(state.rawValue), not pending: only an action waiting to be sent can be parked"
        case .wouldReorder(let id, let why):
            "action #\(id) was not moved: \(why). Let them go in order (the server's log says why it fails #\(id))"
        case .storage(let message): "the queue database failed: \(message)"
        }
    }
}
