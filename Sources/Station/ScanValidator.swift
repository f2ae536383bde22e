import GS1
import Scanning
import Wire

/// Checks a scanned code against the pick task the picker is on, on the station and before the
/// queue, by the rule the server applies too (``ScanRule``): GTIN forms of one item are the same (a
/// UPC-A read as EAN-13 with a leading zero), the line's case GTIN-14 counts its case quantity, and
/// GS1 data must carry the line's lot and expire no earlier than its `bestBefore`.
///
///     ScanValidator.check("0036000291452", against: task)  // .accepted(task, units: 1)
public enum ScanValidator {
    /// Why a scan was accepted or turned away.
    public enum Verdict: Sendable, Equatable {
        /// The code counts `units` of the task (more than 1 for a case).
        case accepted(PickTask, units: Int)
        /// Seen is not the task's barcode.
        case mismatch(expected: String, seen: String, task: PickTask)
        /// The task's item, but its GS1 data names another lot, expires too soon, or breaks the
        /// standard: `reason` says which ("lot L123 expected, L999 scanned").
        case refused(reason: String, task: PickTask)
        /// A case (or GS1 count) of `units` would take the task past what it requires.
        case overPick(units: Int, task: PickTask)
        /// No batch is open on this station.
        case noOpenBatch
        /// Every task of the open batch is complete.
        case batchComplete(batchId: String)
        /// The open batch's organisation does not have scanning turned on.
        case scanningOff(org: String)
        /// The code breaks the contract's barcode rules (too long, control characters): the server
        /// would refuse it, so it is never queued.
        case unacceptable(problem: String)
        /// The code is a task's of the open batch that is already complete.
        case alreadyComplete(PickTask)
        /// Nobody is signed in and the station requires it (`requireSignIn`).
        case signInRequired
        /// A batch label (`batchLabelPattern`): the picker asks to open this batch.
        case batchLabel(batchId: String)
        /// A worker's badge (`workerBadgePattern`): this worker (`name` as the page shows it) signs in.
        case workerBadge(workerId: String, name: String)
        /// With scan to select off (`scanning.scanToSelect`): the code is `other`'s, an unfinished
        /// task that is not the current pick.
        case otherTask(PickTask, current: PickTask)

        public var isAccepted: Bool {
            if case .accepted = self { return true }
            return false
        }

        /// Whether the code is the task's item, counted or not (a case too many, another lot).
        var isTasksItem: Bool {
            switch self {
            case .accepted, .overPick, .refused: true
            default: false
            }
        }

        /// Why a scan did not count, as logs and metrics name it (nil when it counted). Badges and
        /// batch labels are commands, not refusals, but are named the same way.
        public var reason: String? {
            switch self {
            case .accepted: nil
            case .mismatch: "mismatch"
            case .refused: "refused"
            case .overPick: "over_pick"
            case .noOpenBatch: "no_open_batch"
            case .batchComplete: "batch_complete"
            case .scanningOff: "scanning_off"
            case .unacceptable: "unacceptable"
            case .alreadyComplete: "already_complete"
            case .signInRequired: "sign_in_required"
            case .batchLabel: "batch_label"
            case .workerBadge: "worker_badge"
            case .otherTask: "other_task"
            }
        }

        /// A sentence for the picker, readable from a metre away: it names the product and the
        /// location, never an id, a code or a command (those are in the log line's fields).
        public var message: String {
            switch self {
            case .accepted(let task, let units):
                "✓ \(task.displayName) at \(task.location): \(task.qtyPicked + units) of \(task.qtyRequired)"
                    + (units == 1 ? "" : " (a case of \(units))")
            case .refused(let reason, let task): "✗ \(task.displayName) at \(task.location): \(reason)"
            case .overPick(let units, let task):
                "✗ \(units) units would go over: \(task.displayName) at \(task.location) needs \(task.qtyRequired), \(task.qtyPicked) picked"
                    + (task.qtyShort > 0 ? ", \(task.qtyShort) short" : "")
            case .mismatch(_, _, let task):
                "✗ Wrong item: that is not \(task.displayName) for \(task.location)"
            case .otherTask(let other, let current):
                "✗ \(other.displayName): that is for \(other.location); the current pick is \(current.location)"
            case .noOpenBatch:
                "✗ No batch is open: choose one under Batches, or scan a batch label"
            case .batchComplete:
                "✗ This batch is done: open the next one under Batches"
            case .scanningOff:
                "✗ Scanning is off at this station: count on the screen instead"
            case .unacceptable:
                "✗ That code cannot be used here: scan the item's own barcode"
            case .alreadyComplete(let task):
                "✗ Already complete: \(task.displayName) at \(task.location), \(task.qtyPicked) of \(task.qtyRequired) picked"
            case .signInRequired:
                "✗ Scan your badge first: nobody is signed in at this station"
            case .batchLabel:
                "Batch label: opening it …"
            case .workerBadge(_, let name):
                "Signed in: \(name)"
            }
        }
    }

    /// The verdict for `code` when `task` is the active task (nil: none left or no batch).
    /// `symbology` is what the reader reported (nil from a keyboard wedge): an 8-digit EAN-8 is
    /// compared as an EAN-8, never as the UPC-E the same digits could be.
    public static func check(_ code: String, symbology: Symbology? = nil, against task: PickTask?, batchId: String?)
        -> Verdict
    {
        do {
            try FieldRules.barcode(code, field: "barcode")
        } catch {
            return .unacceptable(problem: error.description)
        }
        guard let batchId else { return .noOpenBatch }
        guard let task else { return .batchComplete(batchId: batchId) }
        let readAs: GTIN.EightDigitSymbology? =
            switch symbology {
            case .ean8: .ean8
            case .upce: .upcE
            default: nil
            }
        let outcome = ScanRule.evaluate(
            code, for: task.scanRuleLine, sameItem: { GTIN.sameItem($0, $1, firstReadAs: readAs) })
        switch outcome {
        case .units(let units):
            // Picked + short may not pass required (counts bounded by the cache: no overflow).
            guard units <= task.qtyOpen else { return .overPick(units: units, task: task) }
            return .accepted(task, units: units)
        case .otherItem: return .mismatch(expected: task.barcode, seen: code, task: task)
        case .lotMismatch, .expired, .malformed, .noCount: return .refused(reason: outcome.reason, task: task)
        }
    }

    /// The verdict for `code` among all of the open batch's `tasks` (scan to select): the active
    /// task's code counts for it; another unfinished task's code counts for that task (the first in
    /// pick order), which the picker is then on; a complete task's code is "already complete"; any
    /// other code is refused as for the active task alone. The other task's verdict is its own (a
    /// case that would over-pick it, another lot). With `scanToSelect` false another unfinished
    /// task's code is refused instead (``Verdict/otherTask(_:current:)``): the picker stays on the
    /// current pick.
    public static func check(
        _ code: String, symbology: Symbology? = nil, in tasks: [PickTask], active: PickTask?, batchId: String?,
        scanToSelect: Bool = true
    ) -> Verdict {
        let verdict = check(code, symbology: symbology, against: active, batchId: batchId)
        switch verdict {
        case .mismatch, .batchComplete: break
        default: return verdict
        }
        let items = tasks.map { ($0, check(code, symbology: symbology, against: $0, batchId: batchId)) }
            .filter(\.1.isTasksItem)
        if let active, let other = items.first(where: { !$0.0.isComplete }) {
            return scanToSelect ? other.1 : .otherTask(other.0, current: active)
        }
        if let done = items.first(where: { $0.0.isComplete }) { return .alreadyComplete(done.0) }
        return verdict
    }
}
