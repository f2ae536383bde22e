import Foundation
import TestSupport
import Testing

/// `scanpick station` checks every argument before it does anything: nothing is printed, opened or
/// started for a command line it refuses.
@Suite struct StationArgumentsTests {
    @Test func badOrContradictoryArgumentsAreRefusedBeforeAnythingIsPrinted() async throws {
        let fixture = try await StationFixture()
        let config = fixture.config
        let frames = "SampleImages/clean"
        let cases: [([String], String)] = [
            (["station", "--fps", "0"], "--fps wants a whole number from 1 to 1000, not '0'"),
            (["station", "--frames", frames, "--fps", "0"], "--fps wants a whole number"),
            (["station", "--fps", "5"], "--fps needs --frames"),
            (["station", "--loop", "--wedge"], "--loop needs --frames"),
            (["station", "--frames", frames, "--wedge"], "--frames and --wedge cannot be used together"),
            (["station", "--wedge", "--device", "/dev/video9"], "--wedge and --device cannot be used together"),
        ]
        for (arguments, message) in cases {
            let result = try await ProcessRunner.scanpick(arguments + ["--config", config])
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardOutput.isEmpty, "\(arguments): \(result.standardOutput)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
    }

    @Test func anUnknownOrganisationIsRefusedBeforeTheActiveTaskIsPrinted() async throws {
        let fixture = try await StationFixture()
        let config = fixture.config
        let result = try await ProcessRunner.scanpick(["station", "--wedge", "--org", "nope", "--config", config])
        #expect(result.status == 1)
        #expect(result.standardError.contains("organisations.nope"))
        #expect(result.standardOutput.isEmpty)
    }

    /// A station with several organisations, no batch open and no `--org` (as the packaged unit
    /// runs it) starts: its page comes up and lists each organisation's batches to choose from, and
    /// once one is open, scans count for that batch's organisation.
    @Test func withSeveralOrganisationsAndNoBatchItStartsAndThePageAsksWhichBatch() async throws {
        let fixture = try await StationFixture(openBatch: false, globexScanning: false)
        let station = try await StationProcess(config: fixture.config)  // --wedge, no --org
        let page = APIClient(station.page, token: nil)
        #expect(station.standardOutput.contains("no batch is open: open one from the page"))
        let unsettled = try await page.get("/api/batches")
        #expect(unsettled.status == 400)
        #expect(unsettled.json["error"] as? String == "which_organisation")
        let organisations = try await page.get("/api/organisations").json["organisations"] as? [String]
        #expect(organisations == ["acme", "globex"])
        let acme = try await page.send("GET", "/api/batches?org=acme", body: nil, encoded: true).json
        let batches = try #require(acme["batches"] as? [[String: Any]], "\(acme)")
        #expect(batches.contains { $0["id"] as? String == fixture.scenario.batchId })
        let opened = try await page.post("/api/batches/\(fixture.scenario.batchId)/open", json: ["org": "acme"])
        #expect(opened.status == 200)
        station.scan("036000291452")  // task A1's item
        #expect(await eventually { station.logLines.contains { $0["event"] as? String == "scan" } })
        let scan = station.logLines.first { $0["event"] as? String == "scan" }
        #expect(scan?["accepted"] as? Bool == true, "\(String(describing: scan))")
        #expect(try await eventually { try await fixture.picked() == [1, 0, 0] })  // counted for acme
        #expect(await station.stop() == 0)
    }
}
