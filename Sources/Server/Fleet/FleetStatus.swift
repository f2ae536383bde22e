import Foundation
import Timestamps
import Wire

/// How the fleet view judges a station from its last heartbeat, at a moment on the server's clock.
/// Every status that applies is listed, worst first; the first is the station's status:
///
/// - `help`: its picker has called the shift lead ("Call lead"), and the lead has not cleared it;
/// - `stale`: no heartbeat for three of its intervals (offline, stopped, or its network gone);
/// - `dead_letters`: actions the server refused wait for support;
/// - `backlog`: its oldest unsent action is older than `backlogAlert` (on the station's clock,
///   corrected by how far that clock was from the server's);
/// - `attention`: the station shows something a person must fix, its camera is missing, or its
///   clock is more than ``clockTolerance`` off;
/// - `ok` when none does.
///
///     let view = FleetStatus(backlogAlert: 600).view(entry, now: Date())
struct FleetStatus: Sendable {
    /// How old the oldest unsent action may be, in seconds.
    var backlogAlert: TimeInterval

    /// Heartbeats a station may miss before it is stale.
    static let missedHeartbeats = 3.0
    /// How far a station's clock may be from the server's before the view asks for attention.
    static let clockTolerance: TimeInterval = 300

    func problems(_ entry: StationRegistry.Entry, now: Date) -> [String] {
        let heartbeat = entry.heartbeat
        var problems: [String] = []
        if heartbeat.help != nil { problems.append("help") }
        if now.timeIntervalSince(entry.receivedAt) > Self.missedHeartbeats * Double(heartbeat.heartbeatSeconds) {
            problems.append("stale")
        }
        if heartbeat.dead > 0 { problems.append("dead_letters") }
        if heartbeat.pending + heartbeat.inFlight > 0, let text = heartbeat.oldestPendingAt,
            let oldest = Timestamp.date(text)
        {
            // The station's time of queueing, on the server's clock.
            let queuedAt = oldest.addingTimeInterval(-(entry.clockOffset ?? 0))
            if now.timeIntervalSince(queuedAt) > backlogAlert { problems.append("backlog") }
        }
        if !heartbeat.attention.isEmpty || heartbeat.camera == "missing"
            || abs(entry.clockOffset ?? 0) > Self.clockTolerance
        {
            problems.append("attention")
        }
        return problems
    }

    /// The station as `GET /api/stations` shows it. `tokenRefusedAt` is when the server last refused
    /// a request naming it for its token (``RefusedTokens``): shown only when that came after its
    /// last heartbeat and it has missed one since, so a request made up in its name cannot mark a
    /// station that reports.
    func view(_ entry: StationRegistry.Entry, now: Date, tokenRefusedAt: Date? = nil) -> FleetStation {
        let problems = problems(entry, now: now)
        let silent =
            now.timeIntervalSince(entry.receivedAt) > Self.missedBeat * Double(entry.heartbeat.heartbeatSeconds)
        let refused = tokenRefusedAt.flatMap { $0 > entry.receivedAt && silent ? Timestamp.iso8601($0) : nil }
        return FleetStation(
            heartbeat: entry.heartbeat, lastSeenAt: Timestamp.iso8601(entry.receivedAt),
            clockOffsetSeconds: entry.clockOffset, status: problems.first ?? "ok", problems: problems,
            tokenRefusedAt: refused)
    }

    /// Intervals after which a station has missed a heartbeat (one, with some slack for the network).
    static let missedBeat = 1.5
}
