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

        public var isAccepted: Bool {
            if case .accepted = self { return true }
            return false
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
                "✗ every task of batch \(batchId) is already picked"
            case .scanningOff(let org):
                "✗ scanning is off for \(org) (organisations.\(org).scanning.enabled): tap the row instead"
            case .unacceptable(let problem):
                "✗ not a barcode the server accepts: \(problem)"
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
}
