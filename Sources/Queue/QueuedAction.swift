import Foundation
import Storage

/// What a queued action does on the server.
public enum ActionKind: String, Sendable, Codable, CaseIterable {
    /// A tap: pick more units (`POST /api/picking/pick`).
    case pick
    /// A tap: set the picked count (`POST /api/picking/set-qty`).
    case setQty
    /// A validated scan (`POST /api/picking/submit-scan`).
    case scan
    /// A tap: units that will not be picked, with why (`POST /api/picking/short`).
    case short
    /// The picker finished a batch (`POST /api/batches/{id}/close`): its `pickTaskId` is the batch's
    /// id. Queued like a tap, it reaches the server after the taps queued before it.
    case closeBatch = "close"

    /// The API route that carries an action of this kind on `target` (its task, or for a close its
    /// batch: one of ``isSafePathSegment(_:)``'s ids).
    public func path(target: String) -> String {
        switch self {
        case .pick: "/api/picking/pick"
        case .setQty: "/api/picking/set-qty"
        case .scan: "/api/picking/submit-scan"
        case .short: "/api/picking/short"
        case .closeBatch: "/api/batches/\(target)/close"
        }
    }

    /// Whether `id` can stand in a route's path as it is: 1–200 of the characters a URL never
    /// encodes (`A–Z a–z 0–9 - . _ ~`), and not `.` or `..`. The server's batch ids are; anything
    /// else would send a close to another route (a 404 there pauses the whole queue).
    public static func isSafePathSegment(_ id: String) -> Bool {
        (1...200).contains(id.utf8.count) && id != "." && id != ".."
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-._~".utf8.contains(byte)
            }
    }

    /// The body field that says when the action happened (the server judges its idempotency horizon
    /// on it).
    public var timeField: String { self == .scan ? "scannedAt" : "at" }

    /// The body field that names the action's target (`pickTaskId`, or a close's `batchId`).
    public var targetField: String { self == .closeBatch ? "batchId" : "pickTaskId" }
}

/// Where an action is in its life: pending → inFlight → sent, or dead (refused by the server).
public enum ActionState: String, Sendable, Codable, CaseIterable {
    case pending, inFlight, sent, dead
}

/// An action to put in the queue: made when the tap or scan happens, with its idempotency key.
public struct NewAction: Sendable, Equatable {
    public var org: String
    public var kind: ActionKind
    /// The task it acts on, or for a close the batch.
    public var pickTaskId: String
    /// The exact JSON body sent on every try (it holds the idempotency key).
    public var payload: [UInt8]
    public var idempotencyKey: String
    /// How people see it in the queue table: "pick A1 · ×2".
    public var label: String

    public init(
        org: String, kind: ActionKind, pickTaskId: String, payload: [UInt8], idempotencyKey: String, label: String
    ) {
        self.org = org
        self.kind = kind
        self.pickTaskId = pickTaskId
        self.payload = payload
        self.idempotencyKey = idempotencyKey
        self.label = label
    }
}

/// One row of the queue as stored.
public struct QueuedAction: Sendable, Equatable {
    public var id: Int
    public var org: String
    public var kind: ActionKind
    /// The task it acts on, or for a close the batch.
    public var pickTaskId: String
    public var label: String
    public var payload: [UInt8]
    public var idempotencyKey: String
    public var state: ActionState
    public var tries: Int
    public var createdAt: String
    /// When the drainer may next try it (nil: at once).
    public var nextAttemptAt: Date?
    public var lastStatus: Int?
    public var lastError: String?

    init(row: Row) throws {
        id = try row.int("id")
        org = try row.string("org")
        guard let kind = ActionKind(rawValue: try row.string("kind")),
            let state = ActionState(rawValue: try row.string("state"))
        else { throw StorageError.columnType(column: "kind/state", expected: "a known value") }
        self.kind = kind
        self.state = state
        pickTaskId = try row.string("pick_task_id")
        label = try row.string("label")
        payload = try row.bytes("payload")
        idempotencyKey = try row.string("idempotency_key")
        tries = try row.int("tries")
        createdAt = try row.string("created_at")
        nextAttemptAt = try Self.nextAttempt(row)
        lastStatus = try row.optionalInt("last_status")
        lastError = try row.optionalString("last_error")
    }
}

extension QueuedAction {
    /// The API route that carries it.
    public var path: String { kind.path(target: pickTaskId) }

    /// `next_attempt_at` as stored since `queue-2`, or as a queue from before it stored it (seconds
    /// since 1970, 0 for at once): salvage reads a damaged file as it is, never migrating it.
    static func nextAttempt(_ row: Row) throws -> Date? {
        switch row["next_attempt_at"] {
        case .real(let seconds): seconds > 0 ? Date(timeIntervalSince1970: seconds) : nil
        case .integer(let seconds): seconds > 0 ? Date(timeIntervalSince1970: Double(seconds)) : nil
        default: try row.optionalDate("next_attempt_at")
        }
    }
}

/// How many actions are in each state, and when the queue last delivered one.
public struct QueueCounts: Sendable, Equatable {
    public var pending = 0
    public var inFlight = 0
    public var sent = 0
    public var dead = 0
    /// When an action was last confirmed sent (ISO 8601), or nil.
    public var lastSyncAt: String?
    /// When the oldest action not yet sent (pending or in flight) was queued (ISO 8601), or nil.
    public var oldestUnsentAt: String?
    /// When the newest action still in the queue (in any state) was queued (ISO 8601), or nil: the
    /// picker's last scan or tap, for the fleet view's idle time.
    public var newestQueuedAt: String?

    public init() {}
}
