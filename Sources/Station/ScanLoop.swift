import Capture
import Foundation
import Queue
import Scanning
import Timestamps
import Wire

/// Everything after the frame source: ZBar on the grey frame, debounce on capture time, validation
/// against the active task of the open batch, and, for a match, the scan action queued together with
/// the cached row's change (one transaction). A mismatch is turned away at once and never queued, and
/// so is every scan while the open batch's organisation has scanning off, whatever organisation the
/// loop was started for. Every accepted or rejected scan is one JSON log line.
///
///     let loop = ScanLoop(station: station, reader: ReaderOptions(), debounce: Debouncer.Options()) { log($0) }
///     for outcome in try loop.process(frame) { show(outcome.verdict.message) }
public final class ScanLoop {
    private let station: PickStation
    private let reader: BarcodeReader
    private var debouncer: Debouncer
    private let log: (String) -> Void
    private let onEnqueue: () -> Void

    /// The result of one counted scan.
    public struct Outcome: Sendable {
        public var code: String
        public var symbology: Symbology?
        public var verdict: ScanValidator.Verdict
        /// The queued action's id when accepted.
        public var actionId: Int?
    }

    public init(
        station: PickStation, reader: ReaderOptions, debounce: Debouncer.Options, log: @escaping (String) -> Void,
        onEnqueue: @escaping () -> Void = {}
    ) {
        self.station = station
        self.reader = BarcodeReader(options: reader)
        self.debouncer = Debouncer(options: debounce)
        self.log = log
        self.onEnqueue = onEnqueue
    }

    /// Decodes one frame and handles every code that counts in it.
    public func process(_ frame: Frame) throws -> [Outcome] {
        let seen = reader.read(frame.image).map(Debouncer.Code.init)
        return try debouncer.observe(seen, at: frame.time).map { code in
            try handle(
                String(decoding: code.payload, as: UTF8.self), symbology: code.symbology, at: frame.capturedAt,
                frame: frame.index)
        }
    }

    /// Handles one code from a keyboard-wedge scanner (it has already debounced: one line, one scan).
    public func submit(code: String, at time: Date = Date()) throws -> Outcome {
        try handle(code, symbology: nil, at: time, frame: nil)
    }

    /// Validates and queues one code in one write transaction: the active task is read, checked
    /// and counted (relative to its row as it stands, never past what it requires) together with the
    /// queued scan, so a tap at the same moment can neither be lost nor make an over-pick.
    private func handle(_ code: String, symbology: Symbology?, at time: Date, frame: Int?) throws -> Outcome {
        let worker = station.configuration.worker
        let (verdict, actionId) = try station.queue.transaction { db -> (ScanValidator.Verdict, Int?) in
            let open = try PickListCache.openBatch(db)
            let verdict = ScanValidator.check(
                code, symbology: symbology, against: try PickListCache.activeTask(db), batchId: open?.batchId)
            guard case .accepted(let task) = verdict, let org = open?.org else { return (verdict, nil) }
            // Scans count only for an organisation that has scanning on (the flag is the open batch's
            // organisation's, read now: the batch, or the configuration, may have changed since start).
            guard station.configuration.organisations[org]?.scanningEnabled == true else {
                return (.scanningOff(org: org), nil)
            }
            guard try PickListCache.addPicked(1, task: task.id, org: org, in: db) else {
                return (.batchComplete(batchId: task.batchId), nil)
            }
            let action = try NewAction.scan(
                org: org, pickTaskId: task.id, location: task.location, barcode: code, worker: worker,
                scannedAt: time)
            return (verdict, try ActionQueue.insert(action, in: db))
        }
        let outcome = Outcome(code: code, symbology: symbology, verdict: verdict, actionId: actionId)
        if actionId != nil { onEnqueue() }
        log(Self.logLine(outcome, frame: frame, at: time))
        return outcome
    }

    static func logLine(_ outcome: Outcome, frame: Int?, at time: Date) -> String {
        var line = JSONObjectWriter()
        line.add("time", string: Timestamp.iso8601(time))
        line.add("event", string: "scan")
        line.add("accepted", bool: outcome.verdict.isAccepted)
        line.add("code", string: outcome.code)
        if let symbology = outcome.symbology { line.add("symbology", string: symbology.displayName) }
        if let frame { line.add("frame", number: frame) }
        switch outcome.verdict {
        case .accepted(let task):
            line.add("task", string: task.id)
            line.add("location", string: task.location)
        case .mismatch(let expected, _, let task):
            line.add("reason", string: "mismatch")
            line.add("task", string: task.id)
            line.add("location", string: task.location)
            line.add("expected", string: expected)
        case .noOpenBatch: line.add("reason", string: "no_open_batch")
        case .batchComplete: line.add("reason", string: "batch_complete")
        case .scanningOff(let org):
            line.add("reason", string: "scanning_off")
            line.add("org", string: org)
        case .unacceptable: line.add("reason", string: "unacceptable")
        }
        if let id = outcome.actionId { line.add("actionId", number: id) }
        line.add("message", string: outcome.verdict.message)
        return line.finished()
    }
}
