import Foundation
import TestSupport
import Testing

/// A keyboard wedge on standard input is a stream anyone at the station (or a stuck key) can fill:
/// a line longer than any code is dropped while it is read, never held or logged whole.
@Suite struct WedgeInputTests {
    @Test func aLineLongerThanAnyCodeIsDroppedWhileReadAndLoggedShort() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let scans = { station.logLines.filter { $0["event"] as? String == "scan" } }
        station.scan("036000291452")
        #expect(await eventually { scans().count == 1 })
        let before = try #require(station.peakMemoryKiB)

        // 64 MiB on one line: holding it whole (as a String, then a message) would take hundreds.
        let long = "LONG" + String(repeating: "7", count: 64 << 20)
        try await onOwnThread { station.scan(long) }
        station.scan("036000291452")
        #expect(await eventually { scans().count == 2 })
        let grown = (station.peakMemoryKiB ?? .max) - before
        #expect(grown < 16 * 1024, "the station grew by \(grown) KiB reading one long line")
        let refusals = station.logLines.filter { $0["event"] as? String == "scanner_keys_refused" }
        #expect(refusals.count == 1, "\(refusals)")
        #expect(await station.stop() == 0)

        // Nothing printed or logged holds more of it than its first 100 characters.
        let sevens = String(repeating: "7", count: 97)
        let logged = station.logLines.map { "\($0)" }.joined() + station.standardOutput
        #expect(!logged.contains(sevens), "the long line was printed or logged past 100 characters")
        #expect(refusals.first.map { "\($0)".contains("67108868 bytes") } == true, "\(refusals)")
        #expect(try await fixture.picked() == [2, 0, 0])
    }
}
