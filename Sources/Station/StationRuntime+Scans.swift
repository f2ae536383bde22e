import Foundation
import Lifecycle
import Scanning
import Synchronization
import Wire

/// What happens to each scan: its verdict counted, shown on the page and logged; a batch label
/// opens its batch; codes typed into the page are scans too.
extension StationRuntime {
    /// Codes typed into the page by a handheld scanner the station does not hold (a burst of keys
    /// ended by Enter): each a scan, through the checks, banner, sound, log and metrics of the
    /// station's own scanners, one at a time.
    func takeScans(from page: StationPage) {
        let loop = Mutex(
            ScanLoop(
                station: station, reader: ReaderOptions(), debounce: station.configuration.debounce, logger: logger,
                onEnqueue: { [weak self] in self?.poke() }))
        page.takeScans { [weak self] code in
            guard let self else { return nil }
            var answer: StationPage.ScanAnswer?
            self.handle {
                let outcome = try loop.withLock { try $0.submit(code: code) }
                answer = StationPage.ScanAnswer(accepted: outcome.verdict.isAccepted, message: outcome.verdict.message)
                return [outcome]
            }
            return answer
        }
    }

    /// Handles one frame's (or line's) scans; a failure is logged and shown, and the loop goes on.
    func handle(_ body: () throws -> [ScanLoop.Outcome]) {
        let page = state.withLock { $0.parts?.page }
        do {
            for outcome in try body() {
                metrics.scan(outcome.verdict)
                var counted: PickTask?
                if case .accepted(var task, let units) = outcome.verdict {
                    task.qtyPicked += units  // both within 0...100000: checked by the validator
                    counted = task
                }
                page?.show(feedback(for: outcome.verdict), message: outcome.verdict.message, task: counted)
                if case .batchLabel(let batchId) = outcome.verdict { open(labelled: batchId) }
                state.withLock {
                    if outcome.verdict.isAccepted { $0.summary.accepted += 1 } else { $0.summary.rejected += 1 }
                }
                output(outcome.verdict.message)
            }
            attention.set("scan", nil)
        } catch {
            metrics.refused("not_recorded")
            state.withLock { $0.summary.failed += 1 }
            report("scan", "scan_failed", "a scan could not be recorded: \(error)")
            page?.show(
                scanAccepted: false,
                message:
                    "✗ The scan was not recorded (the station's storage failed): scan again; if it repeats, call support"
            )
        }
    }

    /// The sound and flash of a scan's outcome: a count that completes its task, or the whole batch,
    /// has its own.
    func feedback(for verdict: ScanValidator.Verdict) -> StationJSON.Feedback {
        switch verdict {
        case .accepted(let task, let units):
            guard task.qtyPicked + units >= task.qtyRequired else { return .accepted }
            let batchDone = (try? station.cache.openBatchState())??.complete ?? false
            return batchDone ? .batchComplete : .taskComplete
        case .batchLabel, .workerBadge: return .info
        default: return .refused
        }
    }

    /// A scanned batch label: opens that batch (of the open batch's organisation, or the only
    /// configured one) from the server, or from the cache offline, and says how it went.
    func open(labelled batchId: String) {
        let page = state.withLock { $0.parts?.page }
        let station = self.station
        let org: String
        do {
            org = try station.organisation(requested: nil, preferOpenBatch: true)
        } catch {
            page?.show(
                .refused,
                message: "✗ That batch label cannot be opened by scanning here: choose the batch under Batches")
            log("batch_open_failed", "batch \(batchId) from its scanned label: \(error)")
            return
        }
        // One opening at a time: a label held in view, or scanned again and again, asks the server once.
        let first = state.withLock { state in
            defer { state.openingLabel = true }
            return !state.openingLabel
        }
        guard first else { return }
        page?.show(.info, message: "Opening the scanned batch …")
        let logger = self.logger
        Task { [weak self] in
            defer { self?.state.withLock { $0.openingLabel = false } }
            do {
                let opening = try await station.openBatch(batchId, org: org)
                let how = if case .reopenedFromCache = opening { " (offline: from the station's cache)" } else { "" }
                // Only for the message: a count that cannot be read leaves it out.
                let count = try? await BlockingExecutor.shared.run { try station.cache.tasks().count }
                let lines = count.map { ": \($0) lines" } ?? ""
                page?.show(.info, message: "Batch open\(lines)\(how)")
                logger.event(
                    "batch_opened", ["message": "batch \(batchId) (\(org)) opened from its scanned label\(how)"])
            } catch {
                page?.show(.refused, message: "✗ That batch could not be opened: \(BatchOpening.pickerReason(error))")
                logger.event(
                    "batch_open_failed", ["message": "batch \(batchId) (\(org)) from its scanned label: \(error)"])
            }
        }
    }
}
