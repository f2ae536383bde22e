import GS1
import Scanning
import Wire

/// Checks a scanned code against the pick task the picker is on, on the station and before the
/// queue: GTIN forms of one item are the same (a UPC-A read as EAN-13 with a leading zero).
///
///     ScanValidator.check("0036000291452", against: task)  // .accepted
public enum ScanValidator {
    /// Why a scan was accepted or turned away.
    public enum Verdict: Sendable, Equatable {
        case accepted(PickTask)
        /// Seen is not the task's barcode.
        case mismatch(expected: String, seen: String, task: PickTask)
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
        /// A worker's badge (`workerBadgePattern`): this worker signs in.
        case workerBadge(workerId: String)

        public var isAccepted: Bool {
            if case .accepted = self { return true }
            return false
        }

        /// Why a scan did not count, as logs and metrics name it (nil when it counted). Badges and
        /// batch labels are commands, not refusals, but are named the same way.
        public var reason: String? {
            switch self {
            case .accepted: nil
            case .mismatch: "mismatch"
            case .noOpenBatch: "no_open_batch"
            case .batchComplete: "batch_complete"
            case .scanningOff: "scanning_off"
            case .unacceptable: "unacceptable"
            case .alreadyComplete: "already_complete"
            case .signInRequired: "sign_in_required"
            case .batchLabel: "batch_label"
            case .workerBadge: "worker_badge"
            }
        }

        /// A sentence for the picker, readable from a metre away.
        public var message: String {
            switch self {
            case .accepted(let task):
                "✓ \(task.location): \(task.sku) \(task.qtyPicked + 1)/\(task.qtyRequired)"
            case .mismatch(let expected, let seen, let task):
                "✗ wrong item: saw \(seen), \(task.location) (task \(task.id)) expects \(expected)"
            case .noOpenBatch:
                "✗ no batch is open on this station (scanpick batch open ID)"
            case .batchComplete(let batchId):
                "✗ batch \(batchId) is over (every task picked, or closed): open the next batch"
            case .scanningOff(let org):
                "✗ scanning is off for \(org) (organisations.\(org).scanning.enabled): tap the row instead"
            case .unacceptable(let problem):
                "✗ not a barcode the server accepts: \(problem)"
            case .alreadyComplete(let task):
                "✗ already complete: \(task.location) \(task.sku) \(task.qtyPicked)/\(task.qtyRequired)"
            case .signInRequired:
                "✗ scan your badge first: nobody is signed in at this station"
            case .batchLabel(let batchId):
                "batch label \(batchId)"
            case .workerBadge(let workerId):
                "badge \(workerId)"
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
        guard GTIN.sameItem(code, task.barcode, firstReadAs: readAs) else {
            return .mismatch(expected: task.barcode, seen: code, task: task)
        }
        return .accepted(task)
    }

    /// The verdict for `code` among all of the open batch's `tasks` (scan to select): the active
    /// task's code counts for it; another unfinished task's code counts for that task (the first in
    /// pick order), which the picker is then on; a complete task's code is "already complete"; any
    /// other code is refused as for the active task alone.
    public static func check(
        _ code: String, symbology: Symbology? = nil, in tasks: [PickTask], active: PickTask?, batchId: String?
    ) -> Verdict {
        let verdict = check(code, symbology: symbology, against: active, batchId: batchId)
        switch verdict {
        case .mismatch, .batchComplete: break
        default: return verdict
        }
        let matching = tasks.filter { check(code, symbology: symbology, against: $0, batchId: batchId).isAccepted }
        if let other = matching.first(where: { !$0.isComplete }), active != nil {
            return .accepted(other)
        }
        if let done = matching.first(where: \.isComplete) { return .alreadyComplete(done) }
        return verdict
    }
}
