import GS1
import Wire

/// Why the API's store refused an operation or could not do it, in the picking domain's own words.
/// ``PickingStore``, the idempotency protocol and the stores' engine-error mapping (``ServerStore``)
/// throw it; ``APIError/init(_:)`` turns each case into its HTTP status and code, in one place. A
/// refusal is thrown inside the transaction, so it changes nothing.
///
///     throw PickingError.overPick(task: task, asked: .pick(qty))
enum PickingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The batch, pick task, order or shipment named does not exist in the organisation.
    case notFound(Resource, id: String)
    /// A scan of another item than the task's (GTIN forms of one item are the same item).
    case barcodeMismatch(scanned: String, task: PickTask)
    /// A scan of the task's item whose GS1 data the line refuses: another lot, an expiry before the
    /// line's `bestBefore`, or data that breaks the standard (``ScanRule``).
    case scanRefused(ScanRule.Outcome, task: PickTask)
    /// The change would take the task past the units its order line requires.
    case overPick(task: PickTask, asked: PickChange)
    /// The change would take the picked count below the units already in a box.
    case lockedByShipment(task: PickTask)
    /// A shipment lists a task of another order.
    case taskNotInOrder(task: PickTask, order: String)
    /// A shipment asks for more of a task's units than are picked and not in a box.
    case notPicked(task: PickTask, free: Int, asked: Int)
    /// A shipment lists no units.
    case emptyShipment
    /// A shipment lists one pick task twice.
    case repeatedShipmentUnit
    /// No order line matches a new batch's filters outside an open batch.
    case nothingToBatch
    /// The task's batch is closed (finished by a picker, closed by a supervisor or by the server
    /// after `batches.autoCloseMinutes`): no more picks count on it.
    case batchClosed(batchId: String, closedAt: String?)
    /// Another request with the same idempotency key is being processed (here, or in another server
    /// process that stored the key first).
    case keyInUse
    /// The idempotency key was already used for a different request.
    case keyReused
    /// The action is older than the idempotency horizon and its key is not known: it may have been
    /// counted already under a key since pruned (see ``IdempotencyHorizon``).
    case tooOldToDeduplicate(actionTime: String, retentionDays: Int, marginHours: Int)
    /// The station's clock (or the action time it stamped) is further from the server's than the
    /// idempotency margin allows: the horizon cannot be judged on it (see ``IdempotencyHorizon``).
    case clockSkew(stationTime: String, serverTime: String, toleranceHours: Double)
    /// The database cannot be reached for now (a broken connection, a server restarting): nothing
    /// was changed.
    case unavailable(String)
    /// The database's disk is full (SQLite's SQLITE_FULL, PostgreSQL's 53100): nothing was changed,
    /// and nothing will be until space is freed.
    case storageFull(String)
    /// The database's storage failed (an I/O error, its file deleted or replaced under the server,
    /// PostgreSQL out of resources): nothing was changed.
    case storageFailed(String)
    /// The database failed in a way no retry by the client will fix soon.
    case storage(String)

    /// What a request names that may not exist.
    enum Resource: String, Sendable {
        case batch
        case pickTask = "pick task"
        case order
        case shipment
    }

    /// The change to a task's picked count that was asked for.
    enum PickChange: Equatable, Sendable {
        /// One scanned unit.
        case scan
        /// A scanned case (or GS1 count) of this many units.
        case scanUnits(Int)
        /// A tap adding this many units.
        case pick(Int)
        /// A tap setting the count to this.
        case setQty(Int)
        /// A report of this many units short.
        case short(Int)
    }

    var description: String {
        switch self {
        case .notFound(let resource, let id): "\(resource.rawValue) \(id) does not exist"
        case .barcodeMismatch(let scanned, let task):
            "scanned \(scanned) but task \(task.id) at \(task.location) expects \(task.barcode)"
        case .overPick(let task, .scan):
            task.qtyShort == 0
                ? "task \(task.id) already has all \(task.qtyRequired) units picked"
                : "task \(task.id) is done: \(Self.counts(task))"
        case .overPick(let task, .scanUnits(let units)):
            "a scan of \(units) units would take task \(task.id) over the \(task.qtyRequired) required (\(Self.counts(task)))"
        case .scanRefused(let outcome, let task): "task \(task.id) at \(task.location): \(outcome.reason)"
        case .overPick(let task, .pick(let qty)):
            "picking \(qty) more of \(task.id) would go over the \(task.qtyRequired) required (\(Self.counts(task)))"
        case .overPick(let task, .setQty(let to)): "\(to) is over the \(task.qtyRequired) required for task \(task.id)"
        case .overPick(let task, .short(let qty)):
            "\(qty) more short of \(task.id) would go over the \(task.qtyRequired) required (\(Self.counts(task)))"
        case .lockedByShipment(let task):
            "\(task.qtyLocked) units of \(task.location) are already in a box (task \(task.id))"
        case .taskNotInOrder(let task, let order): "task \(task.id) belongs to order \(task.orderId), not \(order)"
        case .notPicked(let task, let free, let asked):
            "only \(free) picked units of task \(task.id) (\(task.location)) are not in a box yet, \(asked) asked"
        case .emptyShipment: Self.emptyShipmentField.description
        case .repeatedShipmentUnit: "each pick task may appear once in units"
        case .nothingToBatch: "no order line matches these filters outside an open batch"
        case .batchClosed(let id, let at):
            "batch \(id) was closed\(at.map { " at \($0)" } ?? ""): nothing more counts on it (its unpicked units went back to the pool for the next batch); nothing was changed"
        case .keyInUse: "a request with this idempotency key is still being processed; retry shortly"
        case .keyReused: "this idempotency key was already used for a different request"
        case .tooOldToDeduplicate(let time, let days, let hours):
            "this action happened at \(time), before the server's idempotency horizon (keys are kept \(days) days, less a \(hours) h margin), and its key is not known here: it may already have been counted. Compare with the server's count, then drop it or send it again under a new key"
        case .clockSkew(let station, let server, let hours):
            "the station's time \(station) is more than \(Self.hours(hours)) from the server's \(server): set the station's clock (NTP); nothing was changed"
        case .storageFull(let reason):
            "the server cannot store anything now: its database's disk is full (\(reason)); nothing was changed and it is safe to retry once space is freed"
        case .storageFailed(let reason):
            "the server cannot store anything now: its database's storage failed (\(reason)); nothing was changed and it is safe to retry"
        case .unavailable(let reason), .storage(let reason): reason
        }
    }

    /// "2 picked" or "2 picked, 1 short": where a task stands.
    private static func counts(_ task: PickTask) -> String {
        task.qtyShort == 0 ? "\(task.qtyPicked) picked" : "\(task.qtyPicked) picked, \(task.qtyShort) short"
    }

    /// "24 h", "5 min": a tolerance as a person reads it.
    private static func hours(_ hours: Double) -> String {
        hours >= 1 ? "\(Int(hours.rounded())) h" : "\(Int((hours * 60).rounded())) min"
    }

    /// The field rule an empty shipment breaks.
    static let emptyShipmentField = FieldError(field: "units", problem: "must list at least one pick task")
}
