import Foundation
import Queue
import Timestamps
import Wire

/// The station's JSON shapes, shared by the command line's `--json` and the page's local API so the
/// two can never differ.
public enum StationJSON {
    /// `{"online","serverReady","server","pending","inFlight","dead","lastSyncAt","attention":[{"code","message"}]}`,
    /// plus `"scanner"` (what the frame source is doing) and `"lastScan"` when given. `serverReady`
    /// says whether the server's database answers (null when the server did not say). Without
    /// `counts` (the queue could not be read) the counts are null: unknown, never a made-up 0.
    public static func status(
        online: Bool, serverReady: Bool? = nil, server: URL, counts: QueueCounts?, attention: [Attention],
        scanner: String? = nil, lastScan: String? = nil
    ) -> String {
        var object = JSONObjectWriter()
        object.add("online", bool: online)
        if let serverReady {
            object.add("serverReady", bool: serverReady)
        } else {
            object.add("serverReady", raw: "null")
        }
        object.add("server", string: server.absoluteString)
        for (key, value) in [("pending", counts?.pending), ("inFlight", counts?.inFlight), ("dead", counts?.dead)] {
            if let value { object.add(key, number: value) } else { object.add(key, raw: "null") }
        }
        if let last = counts?.lastSyncAt {
            object.add("lastSyncAt", string: last)
        } else {
            object.add("lastSyncAt", raw: "null")
        }
        let items = attention.map { item in
            var entry = JSONObjectWriter()
            entry.add("code", string: item.code)
            entry.add("message", string: item.message)
            return entry.finished()
        }
        object.add("attention", raw: "[" + items.joined(separator: ",") + "]")
        if let scanner { object.add("scanner", string: scanner) }
        if let lastScan { object.add("lastScan", raw: lastScan) }
        return object.finished()
    }

    /// What needs a person, as the station's own files show it: the queue's pauses (the whole
    /// queue's, then each organisation's), then `others` (what the running station has noticed), or
    /// that the queue database failed.
    public static func attention(_ station: PickStation, others: [Attention] = []) -> [Attention] {
        do {
            return try station.queue.pauses().map(\.attention) + others
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

    /// `{"batchId","activeTaskId","tasks":[PickTask + "pending" + "refused"]}` for the open batch:
    /// `pending` while the row has an action not yet confirmed sent, `refused` while it has a dead
    /// letter support has not retried or cleared.
    public static func pickList(_ station: PickStation) throws -> String {
        guard let open = try station.cache.openBatch() else {
            return #"{"batchId":null,"activeTaskId":null,"tasks":[]}"#
        }
        let pending = try station.queue.tasksWithUnsentActions(org: open.org)
        let refused = try station.queue.tasksWithRefusedActions(org: open.org)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let rows = try station.cache.tasks().map { task -> String in
            let object = String(decoding: try encoder.encode(task), as: UTF8.self)
            return String(object.dropLast())
                + #","pending":\#(pending.contains(task.id)),"refused":\#(refused.contains(task.id))}"#
        }
        var object = JSONObjectWriter()
        object.add("batchId", string: open.batchId)
        if let active = try station.cache.activeTask()?.id {
            object.add("activeTaskId", string: active)
        } else {
            object.add("activeTaskId", raw: "null")
        }
        object.add("tasks", raw: "[" + rows.joined(separator: ",") + "]")
        return object.finished()
    }

    /// The queue as an array of `{"id","org","kind","pickTaskId","state","tries","idempotencyKey",
    /// "createdAt","nextAttemptAt","lastStatus","lastError","label"}`.
    public static func queue(_ actions: [QueuedAction]) -> String {
        "["
            + actions.map { action in
                var object = JSONObjectWriter()
                object.add("id", number: action.id)
                object.add("org", string: action.org)
                object.add("kind", string: action.kind.rawValue)
                object.add("pickTaskId", string: action.pickTaskId)
                object.add("state", string: action.state.rawValue)
                object.add("tries", number: action.tries)
                object.add("idempotencyKey", string: action.idempotencyKey)
                object.add("createdAt", string: action.createdAt)
                if let next = action.nextAttemptAt {
                    object.add("nextAttemptAt", string: Timestamp.iso8601(next))
                } else {
                    object.add("nextAttemptAt", raw: "null")
                }
                object.add("lastStatus", raw: action.lastStatus.map(String.init) ?? "null")
                if let error = action.lastError {
                    object.add("lastError", string: error)
                } else {
                    object.add("lastError", raw: "null")
                }
                object.add("label", string: action.label)
                return object.finished()
            }.joined(separator: ",") + "]"
    }
}
