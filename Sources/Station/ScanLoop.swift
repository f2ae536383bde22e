import Capture
import Foundation
import GS1
import JSONText
import Logging
import Metrics
import Queue
import Scanning
import Timestamps
import Wire

/// Everything after the frame source: ZBar on the grey frame, debounce on capture time, validation
/// against the active task of the open batch, and, for a match, the scan action queued together with
/// the cached row's change (one transaction). A mismatch is turned away at once and never queued, and
/// so is every scan while the open batch's organisation has scanning off, whatever organisation the
/// loop was started for. Every accepted or rejected scan is one JSON log line; each frame's decode
/// time goes to `decodeTimes` when given.
///
///     let loop = ScanLoop(station: station, reader: ReaderOptions(), debounce: Debouncer.Options(), logger: logger)
///     for outcome in try loop.process(frame) { show(outcome.verdict.message) }
public final class ScanLoop {
    private let station: PickStation
    private var reader: BarcodeReader
    private var debouncer: Debouncer
    /// Where the reader's options and the debounce come from before each frame (a reloaded config's
    /// symbologies and debounce apply to the next frame), and what they were for the last.
    private let settings: (@Sendable () -> Settings)?
    private var applied: Settings
    private let logger: Logger
    private let onEnqueue: () -> Void
    private let decodeTimes: Histogram?
    /// The codes the last frame showed (for the live view's outlines).
    private var lastSeen: [Barcode] = []
    /// Whether each code's latest scan counted, by payload (for the outlines' colours; bounded).
    private var judged: [[UInt8]: Bool] = [:]
    /// The live source's frame period: the angled look must end within one.
    private var period = FramePeriod()

    /// The result of one counted scan.
    public struct Outcome: Sendable {
        public var code: String
        public var symbology: Symbology?
        public var verdict: ScanValidator.Verdict
        /// The queued action's id when accepted.
        public var actionId: Int?
    }

    /// What a frame is read with: the symbologies looked for, and how codes are confirmed.
    public struct Settings: Sendable, Equatable {
        public var reader: ReaderOptions
        public var debounce: Debouncer.Options

        public init(reader: ReaderOptions, debounce: Debouncer.Options) {
            self.reader = reader
            self.debounce = debounce
        }
    }

    public convenience init(
        station: PickStation, reader: ReaderOptions, debounce: Debouncer.Options, logger: Logger = .discarding,
        onEnqueue: @escaping () -> Void = {}, decodeTimes: Histogram? = nil
    ) {
        self.init(
            station: station, settings: Settings(reader: reader, debounce: debounce), live: nil, logger: logger,
            onEnqueue: onEnqueue, decodeTimes: decodeTimes)
    }

    /// A loop that asks `live` for its settings before each frame: what it answers differently from
    /// the frame before (a reloaded config) applies from that frame on. A new debounce starts from
    /// nothing seen.
    public init(
        station: PickStation, settings initial: Settings, live: (@Sendable () -> Settings)?,
        logger: Logger = .discarding, onEnqueue: @escaping () -> Void = {}, decodeTimes: Histogram? = nil
    ) {
        self.decodeTimes = decodeTimes
        self.station = station
        self.reader = BarcodeReader(options: initial.reader)
        self.debouncer = Debouncer(options: initial.debounce)
        self.settings = live
        self.applied = initial
        self.logger = logger
        self.onEnqueue = onEnqueue
    }

    /// Decodes one frame and handles every code that counts in it. From a `live` source (a camera,
    /// or a replay paced as one) the angled look at turned codes runs only when it can end before the
    /// next frame is due, so the newest frame never waits for it; otherwise (a replay as fast as it
    /// goes) always, so a replay gives the same scans at any speed (`BarcodeReader.readFrame`).
    public func process(_ frame: Frame, live: Bool = false) throws -> [Outcome] {
        if let settings {
            let now = settings()
            if now.reader != applied.reader { reader = BarcodeReader(options: now.reader) }
            if now.debounce != applied.debounce { debouncer = Debouncer(options: now.debounce) }
            applied = now
        }
        let started = ContinuousClock.now
        let due = frame.capturedAt.addingTimeInterval(period.observe(frame.time))
        let reading = reader.readFrame(frame.image, until: live ? due : nil)
        lastSeen = reading.codes
        if let decodeTimes {
            let took = (ContinuousClock.now - started).components
            decodeTimes.observe(Double(took.seconds) + Double(took.attoseconds) / 1e18)
        }
        let seen = lastSeen.map { Debouncer.Code(symbology: $0.symbology, payload: Self.transmitted($0)) }
        return try debouncer.observe(seen, at: frame.time, complete: reading.complete).map { code in
            let outcome = try handle(
                String(decoding: code.payload, as: UTF8.self), symbology: code.symbology, at: frame.capturedAt,
                frame: frame.index)
            if judged.count >= 256 { judged.removeAll() }
            judged[code.payload] = outcome.verdict.isAccepted
            return outcome
        }
    }

    /// The codes of the last frame with their outlines, green once their scan counted (for the
    /// live view; a code not judged yet, or refused, is orange).
    public func sightings() -> [PreviewFeed.Sighting] {
        lastSeen.map { PreviewFeed.Sighting(points: $0.points, accepted: judged[Self.transmitted($0)] ?? false) }
    }

    /// Handles one code from a keyboard-wedge scanner (it has already debounced: one line, one scan).
    public func submit(code: String, at time: Date = Date()) throws -> Outcome {
        try handle(code, symbology: nil, at: time, frame: nil)
    }

    /// Validates and queues one code in one write transaction: the open batch's tasks are read, the
    /// code checked against them (scan to select: another unfinished task's code makes it the active
    /// task) and counted (relative to its row as it stands, never past what it requires) together
    /// with the queued scan, so a tap or a selection at the same moment can neither be lost nor make
    /// an over-pick. A worker's badge signs the worker in; a batch label is returned for the station
    /// to open (it needs the server).
    private func handle(_ code: String, symbology: Symbology?, at time: Date, frame: Int?) throws -> Outcome {
        let configuration = station.configuration
        if let label = try label(code, configuration) {
            let outcome = Outcome(code: code, symbology: symbology, verdict: label, actionId: nil)
            log(outcome, frame: frame)
            return outcome
        }
        let (verdict, actionId) = try station.queue.transaction { db -> (ScanValidator.Verdict, Int?) in
            let open = try PickListCache.openBatch(db)
            let tasks = try PickListCache.tasks(db)
            let active = try PickListCache.activeTask(in: tasks, db)
            let verdict = ScanValidator.check(
                code, symbology: symbology, in: tasks, active: active, batchId: open?.batchId,
                scanToSelect: configuration.scanToSelect)
            guard case .accepted(let task, let units) = verdict, let org = open?.org else { return (verdict, nil) }
            // Scans count only for an organisation that has scanning on (the flag is the open batch's
            // organisation's, read now: the batch, or the configuration, may have changed since start).
            guard configuration.organisations[org]?.scanningEnabled == true else {
                return (.scanningOff(org: org), nil)
            }
            guard
                let worker = try StationWorkers.actingWorker(
                    db, configuration, requireSignIn: configuration.requireSignIn)
            else { return (.signInRequired, nil) }
            guard try PickListCache.addPicked(units, task: task.id, org: org, in: db) else {
                return (.batchComplete(batchId: task.batchId), nil)
            }
            if task.id != active?.id { try PickListCache.select(task.id, in: db) }
            let action = try NewAction.scan(
                org: org, pickTaskId: task.id, location: task.location, barcode: code, worker: worker,
                scannedAt: time)
            return (verdict, try ActionQueue.insert(action, in: db))
        }
        let outcome = Outcome(code: code, symbology: symbology, verdict: verdict, actionId: actionId)
        if actionId != nil { onEnqueue() }
        log(outcome, frame: frame)
        return outcome
    }

    /// A worker's badge (signed in here) or a batch label, by the config's patterns; nil for any
    /// other code. A label whose value could not be a worker or batch id is refused as unacceptable.
    private func label(_ code: String, _ configuration: StationConfiguration) throws -> ScanValidator.Verdict? {
        do {
            try FieldRules.barcode(code, field: "barcode")
        } catch {
            return nil  // the validator refuses it
        }
        if let worker = configuration.workerBadgePattern?.value(in: code) {
            let name = station.workers.name(of: worker)
            do {
                try station.workers.signIn(id: worker, name: name)
            } catch let error as FieldError {
                return .unacceptable(problem: "the badge's worker id \(error.problem)")
            }
            return .workerBadge(workerId: worker, name: name ?? worker)
        }
        if let batchId = configuration.batchLabelPattern?.value(in: code) {
            guard Self.isBatchId(batchId) else {
                return .unacceptable(
                    problem: "the batch label names '\(batchId.prefix(40))', not a batch id (letters, digits, . _ -)")
            }
            return .batchLabel(batchId: batchId)
        }
        return nil
    }

    /// Whether `text` can be a batch id as the server makes them (and a URL path segment as it is).
    public static func isBatchId(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F
            } && text != "." && text != ".."
    }

    /// The code as it is checked and sent: its payload, with the GS1 symbology identifier in front
    /// (`]C1` GS1-128, `]d2` GS1 Data Matrix, `]Q3` GS1 QR, `]e0` DataBar, `]z1` GS1 Aztec) when the reader saw a GS1
    /// symbol whose element string would not otherwise be told from plain text (one that opens with
    /// neither (01) nor (02) and has no GS, such as `17270101` + `0109501101530003`). The station and
    /// the server both read the identifier, as a handheld scanner's.
    static func transmitted(_ barcode: Barcode) -> [UInt8] {
        guard barcode.isGS1, let text = barcode.text, !GS1ElementString.looksLikeGS1(text),
            let identifier = gs1Identifiers[barcode.symbology]
        else { return barcode.payload }
        return Array(identifier.utf8) + barcode.payload
    }

    private static let gs1Identifiers: [Symbology: String] = [
        .code128: "]C1", .dataMatrix: "]d2", .qrcode: "]Q3", .databar: "]e0", .databarExpanded: "]e0",
        .aztec: "]z1",
    ]

    /// Logs one scan (`scan`, at the level the journal's table gives it) with what it was for.
    private func log(_ outcome: Outcome, frame: Int?) {
        logger.log(Logger.Level(event: "scan"), event: "scan") { line in
            line.add("accepted", bool: outcome.verdict.isAccepted)
            line.add("code", string: outcome.code)
            if let symbology = outcome.symbology { line.add("symbology", string: symbology.displayName) }
            if let frame { line.add("frame", number: frame) }
            if let reason = outcome.verdict.reason { line.add("reason", string: reason) }
            Self.addDetails(of: outcome.verdict, to: &line)
            if let id = outcome.actionId { line.add("actionId", number: id) }
            line.add("message", string: outcome.verdict.message)
        }
    }

    private static func addDetails(of verdict: ScanValidator.Verdict, to line: inout JSONObjectWriter) {
        switch verdict {
        case .accepted(let task, _), .mismatch(_, _, let task), .alreadyComplete(let task), .refused(_, let task),
            .overPick(_, let task):
            line.add("task", string: task.id)
            line.add("location", string: task.location)
            switch verdict {
            case .accepted(_, let units) where units != 1, .overPick(let units, _): line.add("units", number: units)
            case .mismatch(let expected, _, _): line.add("expected", string: expected)
            case .refused(let detail, _): line.add("detail", string: detail)
            default: break
            }
        case .scanningOff(let org): line.add("org", string: org)
        case .batchLabel(let batchId): line.add("batch", string: batchId)
        case .workerBadge(let workerId, _): line.add("worker", string: workerId)
        case .unacceptable(let problem): line.add("detail", string: problem)
        case .otherTask(let other, let current):
            line.add("task", string: other.id)
            line.add("location", string: other.location)
            line.add("currentTask", string: current.id)
        case .noOpenBatch, .batchComplete, .signInRequired: break
        }
    }
}
