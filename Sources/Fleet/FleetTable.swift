import Foundation
import TerminalText
import Timestamps
import Wire

/// The fleet as a table for a terminal: worst status first, then by name, with a summary line.
/// What the stations reported is shown with its control characters escaped (a server need not be
/// ours, nor trusted) and each column cut to ``maxColumnWidth``, so one station cannot stretch or
/// break every line.
///
///     print(FleetTable.render(fleet))
public enum FleetTable {
    /// The widest a column's text gets (the last, the attention notes, gets 80).
    static let maxColumnWidth = 40

    public static func render(_ fleet: FleetStations) -> String {
        let now = Timestamp.date(fleet.serverTime) ?? Date()
        let stations = fleet.stations.sorted {
            (rank($0.status), $0.heartbeat.station) < (rank($1.status), $1.heartbeat.station)
        }
        var counts: [String: Int] = [:]
        for station in stations { counts[station.status, default: 0] += 1 }
        let summary = FleetStation.statuses.compactMap { status in counts[status].map { "\($0) \(status)" } }
        let org = TerminalText.printable(fleet.org)
        var lines = [
            stations.isEmpty
                ? "organisation \(org): no station has reported yet"
                : "organisation \(org): \(stations.count) station\(stations.count == 1 ? "" : "s"): "
                    + summary.joined(separator: ", ")
        ]
        guard !stations.isEmpty else { return lines[0] + "\n" }
        var rows = [
            [
                "station", "status", "last seen", "pending", "dead", "oldest pending", "camera", "scanners", "batch",
                "worker", "needs attention",
            ]
        ]
        for station in stations {
            let heartbeat = station.heartbeat
            var oldest = ""
            if heartbeat.pending + heartbeat.inFlight > 0, let text = heartbeat.oldestPendingAt,
                let queued = Timestamp.date(text)
            {
                oldest = age(now.timeIntervalSince(queued.addingTimeInterval(-(station.clockOffsetSeconds ?? 0))))
            }
            // A stuck action in short (its attention item, for the station's support, says it at length).
            let shortened = heartbeat.stuck == nil ? [] : ["action_stuck"]
            var notes = heartbeat.attention.filter { !shortened.contains($0.code) }.map(\.message)
            if let stuck = heartbeat.stuck {
                notes.insert(stuckWords(stuck, now: now, clockOffset: station.clockOffsetSeconds ?? 0), at: 0)
            }
            if let help = heartbeat.help { notes.insert("\(help.by) called the lead", at: 0) }
            if let offset = station.clockOffsetSeconds, abs(offset) > 300 {
                notes.append("clock \(Int(offset.rounded())) s off the server's")
            }
            let cells = [
                heartbeat.station, station.status,
                Timestamp.date(station.lastSeenAt).map { age(now.timeIntervalSince($0)) + " ago" }
                    ?? station.lastSeenAt,
                String(heartbeat.pending + heartbeat.inFlight), String(heartbeat.dead), oldest, heartbeat.camera,
                String(heartbeat.scanners), heartbeat.batchId ?? "", heartbeat.workerName ?? heartbeat.workerId ?? "",
            ].map { TerminalText.clipped(TerminalText.printable($0), to: maxColumnWidth) }
            rows.append(cells + [TerminalText.clipped(TerminalText.printable(notes.joined(separator: " · ")), to: 80)])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let padded = row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            lines.append(padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "#1 stuck 14 min (500, 9 tries), 37 behind it: pick A1 · ×1": short, the notes column is cut at
    /// 80 characters, with the label last.
    static func stuckWords(_ stuck: StationHeartbeat.Stuck, now: Date, clockOffset: Double) -> String {
        let failing = Timestamp.date(stuck.failingSince).map {
            " " + age(now.timeIntervalSince($0.addingTimeInterval(-clockOffset)))
        }
        let answer = stuck.lastStatus.map { "\($0), " } ?? ""
        return
            "#\(stuck.actionId) stuck\(failing ?? "") (\(answer)\(stuck.tries) tries), \(stuck.behind) behind it: \(stuck.label)"
    }

    private static func rank(_ status: String) -> Int {
        FleetStation.statuses.firstIndex(of: status) ?? FleetStation.statuses.count
    }

    /// A duration as people read it: `42 s`, `7 min`, `3 h`, `2 d`.
    static func age(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "?" }
        let whole = Int(max(0, min(seconds, 1e9)))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min" }
        if whole < 86_400 { return "\(whole / 3600) h" }
        return "\(whole / 86_400) d"
    }
}
