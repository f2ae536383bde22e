import Foundation
import Queue
import Timestamps
import Wire

/// The station's JSON shapes, shared by the command line's `--json` and the page's local API so the
/// two can never differ.
public enum StationJSON {
    /// `{"online","serverReady","server","pending","inFlight","dead","oldestPendingAt","lastSyncAt","attention":[{"code","message"}]}`,
    /// plus `"scanner"` (what the frame source is doing), `"lastScan"` and `"timeZone"` (the station's,
    /// an IANA name: the page shows times in it) when given. `serverReady`
    /// says whether the server's database answers (null when the server did not say);
    /// `oldestPendingAt` is when the oldest action not yet sent was queued (null when none waits).
    /// Without `counts` (the queue could not be read) the counts are null: unknown, never a made-up 0.
    public static func status(
        online: Bool, serverReady: Bool? = nil, server: URL, counts: QueueCounts?, attention: [Attention],
        scanner: String? = nil, lastScan: LastScan? = nil, timeZone: String? = nil
    ) throws -> String {
        try encode(
            Status(
                online: online, serverReady: serverReady, server: ServerURL.redacted(server), pending: counts?.pending,
                inFlight: counts?.inFlight, dead: counts?.dead, oldestPendingAt: counts?.oldestUnsentAt,
                lastSyncAt: counts?.lastSyncAt, attention: attention,
                scanner: scanner, lastScan: lastScan, timeZone: timeZone))
    }

    /// The last scan's outcome, as the page shows it in large type and plays it: `feedback` is the
    /// sound and flash (``Feedback``), `seq` numbers the outcomes so a page plays each once.
    public struct LastScan: Encodable, Sendable, Equatable {
        public var accepted: Bool
        public var message: String
        public var at: String
        public var feedback: Feedback
        public var seq: Int
        /// The task a counted scan changed, as it now stands (the page updates its row at once).
        public var pickTask: PickTask?

        public init(
            accepted: Bool, message: String, at: String = Timestamp.iso8601(), feedback: Feedback? = nil, seq: Int = 0,
            pickTask: PickTask? = nil
        ) {
            self.accepted = accepted
            self.message = message
            self.at = at
            self.feedback = feedback ?? (accepted ? .accepted : .refused)
            self.seq = seq
            self.pickTask = pickTask
        }
    }

    /// What a scan's outcome sounds and looks like on the page.
    public enum Feedback: String, Encodable, Sendable {
        /// Counted.
        case accepted
        /// Counted, and its task is now complete.
        case taskComplete
        /// Counted, and every task of the batch is now complete.
        case batchComplete
        /// Turned away: a wrong item, an over-pick, a complete task, no batch.
        case refused
        /// Neither: a badge signed in, a batch label is being opened.
        case info
    }

    /// `status`'s shape: unknown values are `null`, never left out (scripts read every key).
    struct Status: Encodable {
        var online: Bool
        var serverReady: Bool?
        var server: String
        var pending: Int?
        var inFlight: Int?
        var dead: Int?
        var oldestPendingAt: String?
        var lastSyncAt: String?
        var attention: [Attention]
        var scanner: String?
        var lastScan: LastScan?
        var timeZone: String?

        private enum Keys: String, CodingKey {
            case online, serverReady, server, pending, inFlight, dead, oldestPendingAt, lastSyncAt, attention, scanner
            case lastScan, timeZone
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(online, forKey: .online)
            try container.encode(serverReady, forKey: .serverReady)
            try container.encode(server, forKey: .server)
            try container.encode(pending, forKey: .pending)
            try container.encode(inFlight, forKey: .inFlight)
            try container.encode(dead, forKey: .dead)
            try container.encode(oldestPendingAt, forKey: .oldestPendingAt)
            try container.encode(lastSyncAt, forKey: .lastSyncAt)
            try container.encode(attention, forKey: .attention)
            try container.encodeIfPresent(scanner, forKey: .scanner)  // only the running station has these
            try container.encodeIfPresent(lastScan, forKey: .lastScan)
            try container.encodeIfPresent(timeZone, forKey: .timeZone)
        }
    }

    /// What needs a person, as the station's own files show it: the queue's pauses (the whole
    /// queue's, then each organisation's), the action the server has failed for
    /// `queue.stuckAfterMinutes` at `now` (``StuckAction``), then `others` (what the running station
    /// has noticed), or that the queue database failed.
    public static func attention(_ station: PickStation, others: [Attention] = [], now: Date = Date()) -> [Attention] {
        do {
            let stuck = try station.queue.stuckAction(now: now, after: station.configuration.queue.stuckAfter)
            return try station.queue.pauses().map(\.attention) + (stuck.map { [$0.attention(now: now)] } ?? [])
                + others
        } catch {
            return [databaseFailed(error)] + others
        }
    }

    /// The attention item for a queue database that cannot be read.
    public static func databaseFailed(_ error: any Error) -> Attention {
        Attention(
            code: "database_failed",
            message:
                "the station's queue database failed (\(error)): restart the station; if it then reports the database damaged, salvage it (scanpick queue salvage --to FILE)"
        )
    }

    /// `{"batchId","org","status","closed","activeTaskId","tasks":[PickTask + "pending" + "refused"],"refusals"}`
    /// for the open batch: `status` is `open`, `complete` (every task picked or short; it still takes
    /// corrections) or `closed` (finished here, or closed on the server: a supervisor, or its
    /// `batches.autoCloseMinutes`), null with no batch open; `closed` says the same as a boolean.
    /// `pending` while a row has an action not yet confirmed sent, `refused` while it has a dead
    /// letter support has not retried or cleared; `refusals` the server's later refusals the picker
    /// has not acknowledged (``PickerRefusals``), of any batch.
    public static func pickList(_ station: PickStation) throws -> String {
        let refusals = try station.refusals.unacknowledged()
        guard let open = try station.cache.openBatch() else {
            return try encode(
                PickList(
                    batchId: nil, org: nil, status: nil, closed: false, activeTaskId: nil, tasks: [], refusals: refusals
                ))
        }
        let state = try station.cache.openBatchState()
        let closed = state?.closed ?? false
        let pending = try station.queue.tasksWithUnsentActions(org: open.org)
        let refused = try station.queue.tasksWithRefusedActions(org: open.org)
        let rows = try station.cache.tasks().map {
            PickList.Row(task: $0, pending: pending.contains($0.id), refused: refused.contains($0.id))
        }
        return try encode(
            PickList(
                batchId: open.batchId, org: open.org, status: state?.status, closed: closed,
                activeTaskId: try station.cache.activeTask()?.id, tasks: rows, refusals: refusals))
    }

    struct PickList: Encodable {
        var batchId: String?
        var org: String?
        var status: String?
        var closed: Bool
        var activeTaskId: String?
        var tasks: [Row]
        var refusals: [PickerRefusals.Refusal]

        /// A task of the list with the station's two marks beside its fields.
        struct Row: Encodable {
            var task: PickTask
            var pending: Bool
            var refused: Bool

            private enum Keys: String, CodingKey { case pending, refused }

            func encode(to encoder: any Encoder) throws {
                try task.encode(to: encoder)
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(pending, forKey: .pending)
                try container.encode(refused, forKey: .refused)
            }
        }

        private enum Keys: String, CodingKey { case batchId, org, status, closed, activeTaskId, tasks, refusals }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(batchId, forKey: .batchId)
            try container.encode(org, forKey: .org)
            try container.encode(status, forKey: .status)
            try container.encode(closed, forKey: .closed)
            try container.encode(activeTaskId, forKey: .activeTaskId)
            try container.encode(tasks, forKey: .tasks)
            try container.encode(refusals, forKey: .refusals)
        }
    }

    /// The queue as an array of `{"id","org","kind","pickTaskId","state","tries","idempotencyKey",
    /// "createdAt","nextAttemptAt","lastStatus","lastError","label"}`.
    public static func queue(_ actions: [QueuedAction]) throws -> String {
        try encode(actions.map(QueueRow.init))
    }

    struct QueueRow: Encodable {
        var action: QueuedAction

        private enum Keys: String, CodingKey {
            case id, org, kind, pickTaskId, state, tries, idempotencyKey, createdAt, nextAttemptAt, lastStatus,
                lastError, label
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(action.id, forKey: .id)
            try container.encode(action.org, forKey: .org)
            try container.encode(action.kind.rawValue, forKey: .kind)
            try container.encode(action.pickTaskId, forKey: .pickTaskId)
            try container.encode(action.state.rawValue, forKey: .state)
            try container.encode(action.tries, forKey: .tries)
            try container.encode(action.idempotencyKey, forKey: .idempotencyKey)
            try container.encode(action.createdAt, forKey: .createdAt)
            try container.encode(action.nextAttemptAt.map { Timestamp.iso8601($0) }, forKey: .nextAttemptAt)
            try container.encode(action.lastStatus, forKey: .lastStatus)
            try container.encode(action.lastError, forKey: .lastError)
            try container.encode(action.label, forKey: .label)
        }
    }

    /// One shape's JSON: keys sorted, slashes as they are.
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
