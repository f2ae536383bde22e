import Testing
import Wire

@testable import Fleet

@Suite struct FleetTableTests {
    func station(_ name: String, status: String = "ok", batch: String? = nil, worker: String? = nil) -> FleetStation {
        let heartbeat = StationHeartbeat(
            station: name, heartbeatSeconds: 30, version: "1", online: true, pending: 0, inFlight: 0, dead: 0,
            oldestPendingAt: nil, lastSyncAt: nil, camera: "ok", scanners: 1, batchId: batch, workerId: worker,
            attention: [])
        return FleetStation(
            heartbeat: heartbeat, lastSeenAt: "2026-12-05T09:00:00.000Z", clockOffsetSeconds: 0, status: status,
            problems: [])
    }

    /// What a server sent is shown, never obeyed: a station's text cannot clear the screen, retitle
    /// the terminal, add a row of its own or stretch every line.
    @Test func aHostileServersTextNeitherActsOnTheTerminalNorBreaksTheTable() {
        let fleet = FleetStations(
            org: "acme\u{1B}]0;owned\u{7}", serverTime: "2026-12-05T09:00:10.000Z",
            stations: [
                station("x\u{1B}[2J", worker: "w1\nst-fake  ok  now"),
                station("st-2", batch: String(repeating: "b", count: 200), worker: "w2"),
            ])
        let text = FleetTable.render(fleet)
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        let lines = text.split(separator: "\n")
        #expect(lines.count == 4, "\(text)")  // the summary, the header, two stations
        #expect(lines[0].hasPrefix(#"organisation acme\u{1B}]0;owned\u{7}: 2 stations"#))
        #expect(text.contains(#"x\u{1B}[2J"#) && text.contains(#"w1\nst-fake"#))
        #expect(text.contains(String(repeating: "b", count: FleetTable.maxColumnWidth - 1) + "…"))
        #expect(lines.allSatisfy { $0.count < 200 }, "\(lines.map(\.count))")
    }

    /// The picker shows by name when the station knows it, and a call for help leads the notes,
    /// escaped like everything else a server sends.
    @Test func thePickerByNameAndACallForHelp() {
        var calling = station("st-1", status: "help", worker: "w-0042")
        calling.heartbeat.workerName = "Ana\u{1B}[2J Lima"
        calling.heartbeat.help = StationHeartbeat.Help(since: "2026-12-05T08:59:00.000Z", by: "Ana\u{1B}[2J Lima")
        let text = FleetTable.render(
            FleetStations(
                org: "acme", serverTime: "2026-12-05T09:00:10.000Z",
                stations: [station("st-0", worker: "w-7"), calling]))
        let lines = text.split(separator: "\n")
        #expect(lines[0] == "organisation acme: 2 stations: 1 help, 1 ok")
        #expect(lines[2].hasPrefix("st-1") && lines[2].contains(#"Ana\u{1B}[2J Lima called the lead"#), "\(text)")
        #expect(!lines[2].contains("w-0042") && lines[3].contains("w-7"))
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B })
    }

    /// A stuck action is named in short, first among the notes, instead of its long attention item.
    @Test func aStuckActionInWordsALeadReads() {
        var held = station("st-1", status: "backlog")
        held.heartbeat.pending = 38
        held.heartbeat.attention = [
            .init(
                code: "action_stuck", message: "#1 pick A1: the server answered 500 for 14 min … scanpick queue park 1")
        ]
        held.heartbeat.stuck = StationHeartbeat.Stuck(
            actionId: 1, label: "pick A1 · ×1\u{1B}[2J", lastStatus: 500, failingSince: "2026-12-05T08:46:10.000Z",
            tries: 9, behind: 37)
        let text = FleetTable.render(
            FleetStations(org: "acme", serverTime: "2026-12-05T09:00:10.000Z", stations: [held]))
        let row = text.split(separator: "\n")[2]
        #expect(
            row.hasSuffix(#"#1 stuck 14 min (500, 9 tries), 37 behind it: pick A1 · ×1\u{1B}[2J"#),
            "\(text)")
        #expect(!text.contains("queue park"))
    }
}
