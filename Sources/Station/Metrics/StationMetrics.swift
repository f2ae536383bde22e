import Foundation
import Metrics
import Queue
import Synchronization
import Timestamps
import Wire

/// The running station's numbers, for its page's `GET /metrics` (Prometheus's text format) and its
/// heartbeats. The hot paths only add to atomic counters or observe into a histogram (no
/// allocation); the queue's counts and the devices' states are read when scraped.
///
///     metrics.scan(verdict)                 // the scan loop
///     metrics.framesCaptured.add()          // each frame
///     let text = try metrics.text(queue: counts, attention: items.count, online: true)
public final class StationMetrics: Sendable {
    /// Actions the server confirmed since the station started.
    public let sent = Counter()
    public let drainPassSeconds = Histogram(bounds: Histogram.durationBounds)
    public let scansAccepted = Counter()
    /// Scans refused, by ``refusalReasons`` (same order).
    private let scansRefused: [Counter]
    public let framesCaptured = Counter()
    /// Time ZBar took on each frame.
    public let decodeSeconds = Histogram(bounds: StationMetrics.decodeBounds)
    private let devices = Mutex(Devices())

    /// Why a scan was refused, as the scan log says it, then `not_a_scan` (keys a person typed on a
    /// scanner) and `not_recorded` (the database failed).
    public static let refusalReasons = [
        "mismatch", "refused", "over_pick", "no_open_batch", "batch_complete", "scanning_off", "unacceptable",
        "already_complete", "sign_in_required", "other_task", "not_a_scan", "not_recorded",
    ]

    /// Decode times of a 1280×720 frame are milliseconds to tens of milliseconds.
    static let decodeBounds = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.25, 0.5, 1]

    /// What the station's devices are doing.
    public enum CameraState: String, Sendable {
        /// No camera in use (camera disabled, scanning off, recorded frames, a frame source that ended).
        case off
        /// Capturing.
        case ok
        /// Configured but not found, or lost.
        case missing
    }

    private struct Devices {
        var camera = CameraState.off
        var droppedFrames: (@Sendable () -> Int)?
        /// Each configured handheld scanner (numbered from 1): ready or not.
        var scanners: [Int: Bool] = [:]
    }

    /// The `Content-Type` of the metrics' text.
    public static let contentType = PrometheusText.contentType

    public init() {
        scansRefused = Self.refusalReasons.map { _ in Counter() }
    }

    /// Counts a refused scan by its reason (one of ``refusalReasons``).
    public func refused(_ reason: String) {
        let index = Self.refusalReasons.firstIndex(of: reason) ?? Self.refusalReasons.count - 1
        scansRefused[index].add()
    }

    /// Counts one scan's verdict; a badge or a batch label is a command, not a scan.
    public func scan(_ verdict: ScanValidator.Verdict) {
        switch verdict {
        case .accepted: scansAccepted.add()
        case .batchLabel, .workerBadge: break
        default: refused(verdict.reason ?? "unacceptable")
        }
    }

    public func setCamera(_ state: CameraState) { devices.withLock { $0.camera = state } }

    /// Where the frames dropped so far are read (the camera's count).
    public func readDroppedFrames(from source: @escaping @Sendable () -> Int) {
        devices.withLock { $0.droppedFrames = source }
    }

    public func setScanner(_ number: Int, ready: Bool) { devices.withLock { $0.scanners[number] = ready } }

    public var camera: CameraState { devices.withLock { $0.camera } }

    /// Handheld scanners ready now.
    public var scannersReady: Int { devices.withLock { $0.scanners.values.filter { $0 }.count } }

    /// The metrics in Prometheus's text format. `queue` nil: the queue could not be read (its
    /// gauges are left out, never made up).
    public func text(queue counts: QueueCounts?, attention: Int, online: Bool, now: Date = Date()) -> PrometheusText {
        var text = PrometheusText()
        text.family("scanpick_station_online", .gauge, "1 when the server answered the last probe, else 0.")
        text.sample("scanpick_station_online", value: online ? 1 : 0)
        if let counts {
            text.family(
                "scanpick_station_queue_actions", .gauge,
                "Actions in the station's queue by state (as scanpick status counts them).")
            for (state, count) in [("pending", counts.pending), ("in_flight", counts.inFlight), ("dead", counts.dead)] {
                text.sample("scanpick_station_queue_actions", [("state", state)], value: count)
            }
            text.family(
                "scanpick_station_oldest_pending_age_seconds", .gauge,
                "Age of the oldest action not yet sent (0 when none waits).")
            let oldest = counts.oldestUnsentAt.flatMap(Timestamp.date)
            text.sample(
                "scanpick_station_oldest_pending_age_seconds",
                value: oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        }
        text.family("scanpick_station_sent_total", .counter, "Actions the server confirmed since the station started.")
        text.sample("scanpick_station_sent_total", value: sent.value)
        text.family("scanpick_station_drain_pass_duration_seconds", .histogram, "Time one drain pass took.")
        text.histogram("scanpick_station_drain_pass_duration_seconds", [], drainPassSeconds.snapshot)
        text.family("scanpick_station_scans_accepted_total", .counter, "Scans validated and queued.")
        text.sample("scanpick_station_scans_accepted_total", value: scansAccepted.value)
        text.family("scanpick_station_scans_refused_total", .counter, "Scans refused on the station, by reason.")
        for (index, reason) in Self.refusalReasons.enumerated() {
            text.sample("scanpick_station_scans_refused_total", [("reason", reason)], value: scansRefused[index].value)
        }
        let devices = self.devices.withLock { $0 }
        text.family("scanpick_station_frames_captured_total", .counter, "Frames the scan loop decoded.")
        text.sample("scanpick_station_frames_captured_total", value: framesCaptured.value)
        text.family(
            "scanpick_station_frames_dropped_total", .counter,
            "Frames the camera delivered while the decoder was busy (only the newest is kept).")
        text.sample("scanpick_station_frames_dropped_total", value: devices.droppedFrames?() ?? 0)
        text.family("scanpick_station_decode_duration_seconds", .histogram, "Time ZBar took on one frame.")
        text.histogram("scanpick_station_decode_duration_seconds", [], decodeSeconds.snapshot)
        text.family(
            "scanpick_station_camera_up", .gauge,
            "1 when the camera captures, 0 when it is missing (absent when none is in use).")
        if devices.camera != .off { text.sample("scanpick_station_camera_up", value: devices.camera == .ok ? 1 : 0) }
        text.family(
            "scanpick_station_scanner_up", .gauge, "1 when a configured handheld scanner is ready, by its number.")
        for (number, ready) in devices.scanners.sorted(by: { $0.key < $1.key }) {
            text.sample("scanpick_station_scanner_up", [("scanner", String(number))], value: ready ? 1 : 0)
        }
        text.family(
            "scanpick_station_attention_items", .gauge, "Things that need a person (as scanpick status lists them).")
        text.sample("scanpick_station_attention_items", value: attention)
        ProcessMetrics.write(to: &text, version: ScanPickVersion.current)
        return text
    }
}
