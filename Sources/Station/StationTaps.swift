import Foundation
import Queue
import Storage
import Wire

/// A picker's taps on the open batch: the cached row changes and the action is queued in one
/// transaction, at once, online or offline. The station refuses at once what the server would
/// refuse anyway: units below those already in a box (the pack–pick interlock), or past what the
/// order needs.
///
///     let result = try station.taps.pick(taskId, qty: 2)
public struct StationTaps: Sendable {
    let station: StationQueue

    /// The queued action and the row as it now stands.
    public struct Result: Sendable {
        public var actionId: Int
        public var task: PickTask
    }

    /// Picks `qty` more units of a task of the open batch.
    public func pick(_ taskId: String, qty: Int) throws -> Result {
        try tap(taskId) { task in
            guard qty >= 1 else { throw TapRefusal.badQuantity("pick at least 1 unit") }
            guard task.qtyPicked + qty <= task.qtyRequired else {
                throw TapRefusal.overPick(
                    "picking \(qty) more of \(task.location) would make \(task.qtyPicked + qty), over the \(task.qtyRequired) required"
                )
            }
            return (
                task.qtyPicked + qty,
                { org in
                    .pick(
                        org: org, pickTaskId: task.id, location: task.location, qty: qty,
                        worker: station.configuration.worker)
                }
            )
        }
    }

    /// Sets a task's picked count from `from` to `to`.
    public func setQty(_ taskId: String, from: Int, to: Int) throws -> Result {
        try tap(taskId) { task in
            guard to >= 0 else { throw TapRefusal.badQuantity("the count cannot go below 0") }
            guard to >= task.qtyLocked else {
                throw TapRefusal.lockedByShipment("\(task.qtyLocked) units of \(task.location) are already in a box")
            }
            guard to <= task.qtyRequired else {
                throw TapRefusal.overPick("\(to) is over the \(task.qtyRequired) required at \(task.location)")
            }
            return (
                to,
                { org in
                    .setQty(
                        org: org, pickTaskId: task.id, location: task.location, from: from, to: to,
                        worker: station.configuration.worker)
                }
            )
        }
    }

    /// Checks the tap against the cached row, then flips the row and queues the action together.
    private func tap(_ taskId: String, _ decide: (PickTask) throws -> (picked: Int, action: (String) -> NewAction))
        throws -> Result
    {
        guard let open = try station.cache.openBatch() else { throw TapRefusal.noOpenBatch }
        guard var task = try station.cache.tasks().first(where: { $0.id == taskId }) else {
            throw TapRefusal.notInBatch(taskId)
        }
        let (picked, makeAction) = try decide(task)
        let action = makeAction(open.org)
        let id = try station.queue.enqueue(action) { db in
            try db.run(
                "UPDATE pick_list_tasks SET qty_picked = ? WHERE org = ? AND id = ?", [picked, open.org, taskId])
        }
        task.qtyPicked = picked
        return Result(actionId: id, task: task)
    }
}

extension StationQueue {
    /// Taps on the open batch, through the pick-list cache.
    public var taps: StationTaps { StationTaps(station: self) }
}

/// A tap the station turns away at once, with a sentence for the picker.
public enum TapRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case noOpenBatch
    case notInBatch(String)
    case lockedByShipment(String)
    case overPick(String)
    case badQuantity(String)

    public var description: String {
        switch self {
        case .noOpenBatch: "no batch is open on this station (scanpick batch open ID --org ORG)"
        case .notInBatch(let id): "task \(id) is not in the open batch"
        case .lockedByShipment(let message), .overPick(let message), .badQuantity(let message): message
        }
    }
}
