import Foundation
import Queue
import SQLiteStorage
import Timestamps
import Wire

/// A picker's taps on the open batch: the cached row changes and the action is queued in one
/// write transaction, at once, online or offline. The row is changed relative to what it holds at
/// that moment, with the rules in the statement itself, so simultaneous taps (the page, a
/// `scanpick tap` at a shell) can neither lose a count nor over-pick. The station refuses at once
/// what the server would refuse anyway: units below those already in a box (the pack–pick
/// interlock), or past what the order needs.
///
///     let result = try station.taps.pick(taskId, qty: 2)
public struct StationTaps: Sendable {
    let station: PickStation
    /// Whether a tap waits for a worker to sign in (the page's, with `requireSignIn`); otherwise it
    /// carries the config's `worker` while nobody is signed in (a shell's `scanpick tap`).
    var requiringSignIn = false

    /// How many units one pick tap may add.
    public static let pickQuantities = 1...100_000
    /// What a set-quantity tap may set the count to.
    public static let setQuantities = 0...100_000

    /// The queued action and the row as it now stands.
    public struct Result: Sendable {
        public var actionId: Int
        public var task: PickTask
    }

    /// Picks `qty` more units of a task of the open batch.
    public func pick(_ taskId: String, qty: Int) throws -> Result {
        try Tap.pick(qty: qty).check()
        return try tap(taskId) { db, org, task, worker in
            guard try PickListCache.addPicked(qty, task: taskId, org: org, in: db) else {
                // Bounded on both sides (the cache refuses counts past its limit): no overflow.
                throw TapRefusal.overPick(
                    task.qtyShort == 0
                        ? "\(qty) more of \(task.displayName) at \(task.location) would make \(task.qtyPicked + qty), over the \(task.qtyRequired) required"
                        : "\(qty) more of \(task.displayName) at \(task.location) would go over the \(task.qtyRequired) required (\(task.qtyPicked) picked, \(task.qtyShort) short)"
                )
            }
            return try .pick(org: org, pickTaskId: task.id, location: task.location, qty: qty, worker: worker)
        }
    }

    /// Sets a task's picked count from `from` (what the picker saw) to `to`; refused
    /// (``TapRefusal/staleCount(_:current:)``) when the row no longer holds `from`, so a page or a
    /// shell that shows an old count cannot wipe the picks made since.
    public func setQty(_ taskId: String, from: Int, to: Int) throws -> Result {
        try Tap.setQty(from: from, to: to).check()
        return try tap(taskId) { db, org, task, worker in
            guard try PickListCache.setPicked(from: from, to: to, task: taskId, org: org, in: db) else {
                if task.qtyPicked != from {
                    throw TapRefusal.staleCount(
                        "\(task.displayName) at \(task.location) is at \(task.qtyPicked) now, not \(from) as shown: nothing was changed; look again and set it from \(task.qtyPicked)",
                        current: task.qtyPicked)
                }
                if to < task.qtyLocked {
                    throw TapRefusal.lockedByShipment(
                        "\(task.qtyLocked) units of \(task.displayName) at \(task.location) are already in a box")
                }
                throw TapRefusal.overPick(
                    "\(to) is over the \(task.qtyRequired) required of \(task.displayName) at \(task.location)")
            }
            return try .setQty(
                org: org, pickTaskId: task.id, location: task.location, from: from, to: to, worker: worker)
        }
    }

    /// Reports `qty` units of a task of the open batch that will not be picked, for `reason`: the row
    /// counts them at once (the task is done when picked + short reach required), and the report is
    /// queued like any tap. More than the task still needs is refused (``TapRefusal/overPick(_:)``).
    public func short(_ taskId: String, qty: Int, reason: ShortReason) throws -> Result {
        try Tap.short(qty: qty, reason: reason).check()
        return try tap(taskId) { db, org, task, worker in
            guard try PickListCache.addShort(qty, task: taskId, org: org, in: db) else {
                throw TapRefusal.overPick(
                    "\(qty) short of \(task.displayName) at \(task.location) is more than the \(task.qtyOpen) still to pick (\(task.qtyRequired) required, \(task.qtyPicked) picked, \(task.qtyShort) short)"
                )
            }
            return try .short(
                org: org, pickTaskId: task.id, location: task.location, qty: qty, reason: reason, worker: worker)
        }
    }

    /// The picker finished batch `batchId` (the page's "Finish batch", `scanpick batch close`): in
    /// one transaction the station marks it closed, so nothing more counts on it here, and queues
    /// its close, which reaches the server after every action queued before it. Returns the close's
    /// action id, or nil when the station had closed it already (nothing more is queued). Only a
    /// batch the station has cached can be finished here (``TapRefusal/notCached(_:)``).
    @discardableResult
    public func closeBatch(_ batchId: String, org: String, now: Date = Date()) throws -> Int? {
        let configuration = station.configuration
        _ = try configuration.organisation(org)
        return try station.queue.transaction { db in
            guard try PickListCache.isCached(batchId, org: org, in: db) else { throw TapRefusal.notCached(batchId) }
            guard try !PickListCache.isClosed(batchId, org: org, in: db) else { return nil }
            guard
                let worker = try StationWorkers.actingWorker(db, configuration, requireSignIn: requiringSignIn)
            else { throw TapRefusal.signInRequired }
            try PickListCache.markClosedHere(batchId, org: org, at: Timestamp.iso8601(now), in: db)
            return try ActionQueue.insert(.closeBatch(org: org, batchId: batchId, worker: worker, at: now), in: db)
        }
    }

    /// In one write transaction: finds the task in the open batch (refused when the server closed
    /// it) and the worker acting, lets `change` update its row (or refuse, reading the row as it
    /// stands for the reason), and queues the action it returns.
    private func tap(_ taskId: String, _ change: (Database, String, PickTask, String) throws -> NewAction) throws
        -> Result
    {
        let configuration = station.configuration
        return try station.queue.transaction { db in
            guard let open = try PickListCache.openBatch(db) else { throw TapRefusal.noOpenBatch }
            guard let task = try PickListCache.task(taskId, in: db) else { throw TapRefusal.notInBatch(taskId) }
            guard try !PickListCache.isClosed(open.batchId, org: open.org, in: db) else {
                throw TapRefusal.batchClosed(open.batchId)
            }
            guard
                let worker = try StationWorkers.actingWorker(db, configuration, requireSignIn: requiringSignIn)
            else { throw TapRefusal.signInRequired }
            let id = try ActionQueue.insert(try change(db, open.org, task, worker), in: db)
            guard let updated = try PickListCache.task(taskId, in: db) else { throw TapRefusal.notInBatch(taskId) }
            return Result(actionId: id, task: updated)
        }
    }
}

extension PickStation {
    /// Taps on the open batch, through the pick-list cache (carrying the config's `worker` while
    /// nobody is signed in).
    public var taps: StationTaps { StationTaps(station: self) }

    /// The page's taps: with `requireSignIn`, refused until a worker signs in.
    public var pageTaps: StationTaps {
        StationTaps(station: self, requiringSignIn: configuration.requireSignIn)
    }
}

/// A tap the station turns away at once, with a sentence for the picker.
public enum TapRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case noOpenBatch
    case notInBatch(String)
    /// A batch the station has never opened cannot be finished here.
    case notCached(String)
    case lockedByShipment(String)
    case overPick(String)
    /// A quantity outside what a tap may carry (``StationTaps/pickQuantities``, ``StationTaps/setQuantities``).
    case invalidQuantity(String)
    /// A set-quantity tap whose `from` is not the row's count any more (the picker saw an old one).
    case staleCount(String, current: Int)
    /// The open batch is closed (finished here, or closed on the server).
    case batchClosed(String)
    /// Nobody is signed in and the station requires it.
    case signInRequired

    public var description: String {
        switch self {
        case .noOpenBatch:
            "no batch is open on this station: open one from the page, by scanning a batch label, or with scanpick batch open ID"
        case .notInBatch(let id): "task \(id) is not in the open batch"
        case .notCached(let id): "batch \(id) was never opened on this station"
        case .batchClosed(let id): "batch \(id) is closed: nothing more counts on it; open the next batch"
        case .signInRequired: "sign in first (scan your badge or choose your name): nobody is signed in at this station"
        case .lockedByShipment(let message), .overPick(let message), .invalidQuantity(let message),
            .staleCount(let message, _):
            message
        }
    }

    /// The refusal in a picker's words, for the page: no id and no command (``description`` is the
    /// shell's, which names them).
    public var pickerMessage: String {
        switch self {
        case .noOpenBatch: "No batch is open: choose one under Batches, or scan a batch label"
        case .notInBatch: "That line is not in the open batch any more: look at the list again"
        case .batchClosed: "This batch is closed: nothing more counts on it; open the next one under Batches"
        default: description
        }
    }

    /// The stable code the page's API answers with.
    public var code: String {
        switch self {
        case .invalidQuantity: "invalid_quantity"
        case .staleCount: "stale_count"
        case .batchClosed: "batch_closed"
        case .signInRequired: "sign_in_required"
        case .notCached: "not_found"
        default: "refused"
        }
    }

    /// The HTTP status the page's API answers with: 409 when the count changed under the picker
    /// (look again), 422 for a tap the station refuses outright.
    public var status: Int {
        switch self {
        case .staleCount, .batchClosed: 409
        case .signInRequired: 403
        case .notCached: 404
        default: 422
        }
    }
}
