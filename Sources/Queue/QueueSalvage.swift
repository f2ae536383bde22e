import Foundation
import JSONText
import SQLiteStorage
import Storage
import Timestamps
import Wire

/// One unsent action as `scanpick queue salvage` writes it (a JSON line) and `scanpick queue import`
/// reads it back: everything needed to send it again under the same idempotency key.
public struct SalvagedAction: Codable, Sendable, Equatable {
    public var id: Int
    public var org: String
    public var kind: String
    public var pickTaskId: String
    public var label: String
    public var idempotencyKey: String
    public var state: String
    public var tries: Int
    public var createdAt: String
    public var lastStatus: Int?
    public var lastError: String?
    /// The exact JSON body sent on every try.
    public var payload: String

    /// The action as a salvage writes it.
    public init(_ action: QueuedAction) {
        id = action.id
        org = action.org
        kind = action.kind.rawValue
        pickTaskId = action.pickTaskId
        label = action.label
        idempotencyKey = action.idempotencyKey
        state = action.state.rawValue
        tries = action.tries
        createdAt = action.createdAt
        lastStatus = action.lastStatus
        lastError = action.lastError
        payload = String(decoding: action.payload, as: UTF8.self)
    }
}

/// What a salvage read from a damaged queue.
public struct Salvage: Sendable {
    /// Every readable pending, in-flight or dead action, oldest first.
    public var actions: [SalvagedAction]
    /// Actions the file shows exist (an index lists them, or a row's place in the table) whose row
    /// could not be read whole, oldest first: not sent as far as the file tells.
    public var unreadable: [Unreadable]
    /// Ids up to the highest the queue handed out that no path of the file accounts for (sent and
    /// pruned, cleared, or lost with a damaged page): listed only when no index of the file read
    /// whole, since a whole index lists every row there is.
    public var unaccounted: [ClosedRange<Int>]

    /// An action known to exist whose row could not be read: what the file still says of it.
    public struct Unreadable: Sendable, Equatable {
        public var id: Int
        /// Its key, when the key index still holds it (ask the server whether it counted it).
        public var idempotencyKey: String?
        /// Its state, when the state index still holds it.
        public var state: String?
    }
}

/// What an import did.
public struct QueueImport: Sendable, Equatable {
    /// Actions put in the queue.
    public var imported = 0
    /// Actions whose key was already in the queue (left as they were: nothing is queued twice).
    public var alreadyQueued = 0
}

extension ActionQueue {
    /// Reads every readable unsent action (pending, in flight, dead) of the queue database at
    /// `path`, without checking or changing it: the way out of a damaged queue. It reads through every
    /// path the file holds, since a damaged page can answer wrongly instead of failing:
    ///
    /// - SQLite's own reads: the whole table, else its ids walked in order, stepping over damage;
    /// - the file page by page (``RawDatabaseFile``, with the committed `-wal`): the table's b-tree
    ///   from its root, then every other table page that is not on the freelist (the leaves a
    ///   damaged interior page no longer points to), each row checked as an import checks it;
    /// - the `idempotency_key` and state indexes, which say which ids exist, with their keys and
    ///   states, whatever became of their rows.
    ///
    /// Ids an index lists whose row reads nowhere are ``Salvage/unreadable``; ids no path accounts for
    /// are ``Salvage/unaccounted``.
    public static func salvage(path: String) throws(QueueError) -> Salvage {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .storage("there is no queue database at \(path) to salvage (see `database` in the station config)")
        }
        // Every read of a file that is not SQLite's fails alike: no walk would find a row in it.
        let header = FileHandle(forReadingAtPath: path).flatMap { file in
            defer { try? file.close() }
            return try? file.read(upToCount: 16)
        }
        guard header == Data("SQLite format 3\0".utf8) else {
            throw .damaged(
                path,
                "it is not a SQLite database (it does not begin as one does), so it holds no action to salvage: is \"database\" in the station config the queue's file?"
            )
        }
        let file: RawDatabaseFile
        do {
            file = try RawDatabaseFile(path: path)
        } catch {
            throw .damaged(path, "it cannot be read: \(error)")
        }
        let db = try? Database(readingOnly: path)
        var reading = SalvageReading()
        reading.readPageByPage(file, columns: db.flatMap(Self.columns) ?? QueueSchema.actionColumns)
        if let db { reading.readThroughSQLite(db) }
        let salvage = reading.salvage()
        guard !salvage.actions.isEmpty || !salvage.unreadable.isEmpty || reading.anyPathRead else {
            throw .damaged(path, "not one of its actions can be read")
        }
        return salvage
    }

    /// The `actions` table's columns in their order, as SQLite reads its schema (nil when it cannot).
    private static func columns(_ db: Database) -> [String]? {
        guard let rows = try? db.rows("PRAGMA table_info(actions)"), !rows.isEmpty else { return nil }
        return try? rows.map { try $0.string("name") }
    }

    /// Puts salvaged actions into this queue with their own keys, in one transaction: in-flight ones
    /// as pending, dead ones still dead. One whose key is already here is left alone, so importing
    /// twice queues nothing twice. Each action is checked first, and its organisation must be one of
    /// `organisations` (the station's: an action for another could never be sent): `QueueError.badImport`
    /// names the first bad one and nothing is imported. Recorded in the station log.
    ///
    /// The queue drains by id, so imported actions go after what it already holds. That must not send
    /// old work after new: the import is refused (``QueueError/importOutOfOrder(_:)``) while the queue
    /// holds unsent actions of its own (let them go first), and for a set-quantity whose task has a
    /// newer action here (sending it now would undo that one).
    public func importActions(
        _ actions: [SalvagedAction], from source: String, by actor: String, organisations: Set<String>
    ) throws(QueueError) -> QueueImport {
        for (index, action) in actions.enumerated() {
            if let problem = Self.problem(with: action) { throw .badImport(line: index + 1, problem) }
            guard organisations.contains(action.org) else {
                throw .badImport(
                    line: index + 1,
                    "organisation '\(action.org)' is not configured on this station (it has \(organisations.sorted().joined(separator: ", "))): add it to the config first"
                )
            }
        }
        do {
            return try transaction { db in
                try Self.checkOrder(of: actions, in: db)
                var result = QueueImport()
                for action in actions {
                    let changed = try db.run(
                        """
                        INSERT INTO actions (org, kind, pick_task_id, label, payload, idempotency_key, state, tries,
                            created_at, updated_at, last_status, last_error)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING
                        """,
                        [
                            action.org, action.kind, action.pickTaskId, action.label, Array(action.payload.utf8),
                            action.idempotencyKey, action.state == "dead" ? "dead" : "pending", action.tries,
                            action.createdAt, Timestamp.iso8601(), action.lastStatus, action.lastError,
                        ])
                    if changed == 1 { result.imported += 1 } else { result.alreadyQueued += 1 }
                }
                var detail = JSONObjectWriter()
                detail.add("file", string: source)
                detail.add("imported", number: result.imported)
                detail.add("alreadyQueued", number: result.alreadyQueued)
                try db.run(
                    "INSERT INTO station_log (at, event, action_id, actor, detail) VALUES (?, 'import', NULL, ?, ?)",
                    [Timestamp.iso8601(), actor, detail.finished()])
                return result
            }
        } catch let error as QueueError {
            throw error
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// Refuses an import that would send old work after new (see ``importActions(_:from:by:organisations:)``).
    private static func checkOrder(of actions: [SalvagedAction], in db: Database) throws {
        let importing = Set(actions.map(\.idempotencyKey))
        let own = try db.rows(
            "SELECT id, idempotency_key, created_at FROM actions WHERE state IN ('pending', 'inFlight') ORDER BY id"
        ).filter { try !importing.contains($0.string("idempotency_key")) }
        if let oldest = own.first {
            throw QueueError.importOutOfOrder(
                "this queue has \(own.count) unsent actions of its own (the oldest #\(try oldest.int("id")), made \(try oldest.string("created_at"))): imported now, the older salvaged actions would be sent after them. Let the station send them first (scanpick drain), then import again"
            )
        }
        for (index, action) in actions.enumerated() where action.kind == ActionKind.setQty.rawValue {
            guard let made = Timestamp.date(action.createdAt) else { continue }  // checked before
            let newer = try db.rows(
                "SELECT id, idempotency_key, created_at FROM actions WHERE org = ? AND pick_task_id = ? ORDER BY id",
                [action.org, action.pickTaskId]
            ).first { row in
                try !importing.contains(row.string("idempotency_key"))
                    && (Timestamp.date(try row.string("created_at")).map { $0 > made } ?? true)
            }
            if let newer {
                throw QueueError.badImport(
                    line: index + 1,
                    "\(action.label) (made \(action.createdAt)) is older than action #\(try newer.int("id")) on the same task already in this queue: sent now it would undo that one. Compare with the server's count, then set it by hand or remove this line"
                )
            }
        }
    }

    /// What is wrong with a salvaged action, or nil: every field is bounded and checked before SQL
    /// sees it, and the body must carry the action's own key and task, and its action time.
    static func problem(with action: SalvagedAction) -> String? {
        func text(_ value: String, _ name: String, _ range: ClosedRange<Int>) -> String? {
            guard range.contains(value.utf8.count) else { return "\(name) must be \(range) bytes long" }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                return "\(name) holds control characters"
            }
            return nil
        }
        if let problem =
            text(action.org, "org", 1...200) ?? text(action.pickTaskId, "pickTaskId", 1...200)
            ?? text(action.label, "label", 1...500) ?? text(action.createdAt, "createdAt", 1...40)
            ?? action.lastError.flatMap({ text($0, "lastError", 0...4000) })
        {
            return problem
        }
        guard ActionKind(rawValue: action.kind) != nil else { return "kind '\(action.kind.prefix(20))' is unknown" }
        guard ["pending", "inFlight", "dead"].contains(action.state) else {
            return "state must be pending, inFlight or dead (a sent action is not imported)"
        }
        guard (1...255).contains(action.idempotencyKey.utf8.count),
            action.idempotencyKey.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return "idempotencyKey must be 1–255 visible ASCII characters" }
        guard (0...1_000_000).contains(action.tries) else { return "tries must be 0–1000000" }
        if let status = action.lastStatus, !(100...599).contains(status) { return "lastStatus must be an HTTP status" }
        guard action.payload.utf8.count <= 64 << 10,
            let body = try? JSONSerialization.jsonObject(with: Data(action.payload.utf8)) as? [String: Any]
        else { return "payload must be a JSON object of at most 64 KiB" }
        let kind = ActionKind(rawValue: action.kind) ?? .pick  // known: checked above
        guard body["idempotencyKey"] as? String == action.idempotencyKey,
            body[kind.targetField] as? String == action.pickTaskId
        else { return "payload does not carry the action's idempotencyKey and \(kind.targetField)" }
        if kind == .closeBatch, !ActionKind.isSafePathSegment(action.pickTaskId) {
            return "a close's batch id must be letters, digits and - . _ ~ only"
        }
        guard Timestamp.date(action.createdAt) != nil else {
            return "createdAt '\(action.createdAt.prefix(40))' is not an ISO 8601 time"
        }
        // The server judges its idempotency horizon on the action time: one without it is not judged.
        let timeField = kind.timeField
        guard let time = body[timeField] as? String, Timestamp.date(time) != nil else {
            return "payload has no \(timeField) (the action's time, ISO 8601)"
        }
        return nil
    }
}
