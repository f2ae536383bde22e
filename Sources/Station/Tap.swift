import Queue
import Wire

/// A picker's tap as a person or a script asks for it: pick some more units, set the count, or
/// report units that will not be picked.
public enum Tap: Sendable, Equatable {
    /// Pick `qty` more units (``StationTaps/pickQuantities``).
    case pick(qty: Int)
    /// Set the picked count from `from` (what the picker saw) to `to` (``StationTaps/setQuantities``).
    case setQty(from: Int, to: Int)
    /// `qty` units will not be picked, for `reason` (``StationTaps/pickQuantities``).
    case short(qty: Int, reason: ShortReason)

    /// Throws ``TapRefusal/invalidQuantity(_:)`` for a quantity outside what a tap may carry.
    func check() throws(TapRefusal) {
        switch self {
        case .pick(let qty), .short(let qty, _):
            guard StationTaps.pickQuantities.contains(qty) else {
                let range = StationTaps.pickQuantities
                let what = if case .short = self { "a short pick reports" } else { "a pick tap adds" }
                throw .invalidQuantity("\(what) \(range.lowerBound) to \(range.upperBound) units, not \(qty)")
            }
        case .setQty(let from, let to):
            let range = StationTaps.setQuantities
            for (name, value) in [("from", from), ("to", to)] where !range.contains(value) {
                throw .invalidQuantity("\(name) must be \(range.lowerBound) to \(range.upperBound), not \(value)")
            }
        }
    }
}

extension StationTaps {
    /// Queues `tap` on task `taskId` of `org` and returns the action's id, durable when this returns.
    /// A task of the open batch goes through the pick list: its row changes with the action, and the
    /// station refuses at once what the server would (units already in a box, over-picks). A task
    /// that is not in the open batch is refused (``TapRefusal/notInBatch(_:)``): a mistyped id or
    /// another organisation's task would only go dead on the server. With `outsideBatch` (support,
    /// who know the task exists on the server) it is queued as it is, for the server to judge.
    ///
    ///     let id = try station.taps.record(.pick(qty: 2), task: "task-7", org: "acme")
    public func record(_ tap: Tap, task taskId: String, org: String, outsideBatch: Bool = false) throws -> Int {
        try tap.check()
        _ = try station.configuration.organisation(org)
        let open = try station.cache.openBatch()
        if let open, open.org == org, try station.cache.tasks().contains(where: { $0.id == taskId }) {
            switch tap {
            case .pick(let qty): return try pick(taskId, qty: qty).actionId
            case .setQty(let from, let to): return try setQty(taskId, from: from, to: to).actionId
            case .short(let qty, let reason): return try short(taskId, qty: qty, reason: reason).actionId
            }
        }
        guard outsideBatch else {
            guard let open else { throw TapRefusal.noOpenBatch }
            throw TapRefusal.notInBatch(open.org == org ? taskId : "\(taskId) of \(org)")
        }
        let worker = try station.workers.current()?.id ?? station.configuration.worker  // who is signed in
        switch tap {
        case .pick(let qty):
            return try station.queue.enqueue(
                .pick(org: org, pickTaskId: taskId, location: nil, qty: qty, worker: worker))
        case .setQty(let from, let to):
            return try station.queue.enqueue(
                .setQty(org: org, pickTaskId: taskId, location: nil, from: from, to: to, worker: worker))
        case .short(let qty, let reason):
            return try station.queue.enqueue(
                .short(org: org, pickTaskId: taskId, location: nil, qty: qty, reason: reason, worker: worker))
        }
    }
}
