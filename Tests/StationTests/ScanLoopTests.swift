import Foundation
import TestSupport
import Testing

/// The station's scan loop through `scanpick station --frames/--wedge`, against a real server.
@Suite struct ScanLoopTests {
    let code = "clean/upca.png"  // UPC-A 036000291452: task A1
    let blank = "none/noise.png"

    @Test func anItemHeldInViewIsOneScanAndThreeDeliberateScansAreThree() async throws {
        let fixture = try await StationFixture()
        let held = try fixture.frames("held", [(code, 90)])
        let once = try await fixture.scanpick(["station", "--frames", held])
        #expect(once.status == 0, "\(once.standardError)")
        #expect(StationFixture.scanLines(once).count == 1)
        #expect(once.standardOutput.contains("✓ SKU-A1 at A1: 1 of 3"))

        let deliberate = try fixture.frames("three", [(code, 10), (blank, 60), (code, 10), (blank, 60), (code, 10)])
        let three = try await fixture.scanpick(["station", "--frames", deliberate])
        let accepted = StationFixture.scanLines(three).filter { $0["accepted"] as? Bool == true }
        // A1 needs 3: one from the first run, two more; the third is for a complete task.
        #expect(accepted.count == 2)
        #expect(three.standardOutput.contains("✓ SKU-A1 at A1: 3 of 3"))
        #expect(three.standardOutput.contains("✗ Already complete: SKU-A1 at A1, 3 of 3 picked"))
        #expect(StationFixture.scanLines(three).last?["reason"] as? String == "already_complete")
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [3, 0, 0])
    }

    @Test func aFlickerDoesNotCountTwiceAndReplayTimeIsFrameTime() async throws {
        let fixture = try await StationFixture()
        let flicker = try fixture.frames("flicker", [(code, 10), (blank, 2), (code, 10), (blank, 1), (code, 10)])
        // The same frames at 5 fps: the gaps last 0.4 s and 0.2 s, still under the 1.5 s hold-off.
        let slow = try await fixture.scanpick(["station", "--frames", flicker, "--fps", "5"])
        #expect(StationFixture.scanLines(slow).count == 1)
        // At 1 fps even a one-frame gap puts 2 s between sightings: past the hold-off, three presences.
        let slower = try await fixture.scanpick(["station", "--frames", flicker, "--fps", "1"])
        #expect(StationFixture.scanLines(slower).count == 3)
    }

    @Test func twoCodesInOneFrameAreCheckedEach() async throws {
        let fixture = try await StationFixture()
        // A1's UPC-A and C2's EAN-8 in one frame: each counts for its own task (scan to select).
        let both = try fixture.frames("both", [("multi/tote-two-codes.jpg", 5)])
        let result = try await fixture.scanpick(["station", "--frames", both])
        let lines = StationFixture.scanLines(result)
        #expect(lines.count == 2)
        #expect(lines.contains { $0["code"] as? String == "036000291452" && $0["accepted"] as? Bool == true })
        let other = try #require(lines.first { $0["code"] as? String == "96385074" })
        #expect(other["accepted"] as? Bool == true)
        #expect(other["location"] as? String == "C2")
        #expect(other["actionId"] is Int)
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [1, 0, 1])
    }

    /// Scan to select: another unfinished task's code makes it the active task and counts; a
    /// complete task's code says so; a code no task has is refused as a wrong item.
    @Test func aScanOfAnotherTaskSelectsItAndACompleteOneSaysSo() async throws {
        let fixture = try await StationFixture()
        let b3 = fixture.scenario.tasks[1]
        let run = try await fixture.wedge(["96385074", "96385074", "SKU-7731", "5901234123457"], expecting: 4)
        #expect(run.scans.map { $0["accepted"] as? Bool } == [true, false, false, true])
        #expect(run.scans.map { $0["reason"] as? String } == [nil, "already_complete", "mismatch", nil])
        #expect(run.standardOutput.contains("✓ SKU-C2 at C2: 1 of 1"))
        #expect(run.standardOutput.contains("✗ Already complete: SKU-C2 at C2, 1 of 1 picked"))
        // A code no task has is checked against the active task: A1, the first incomplete one.
        #expect(run.standardOutput.contains("✗ Wrong item: that is not SKU-A1 for A1"))
        #expect(run.standardOutput.contains("✓ SKU-B3 at B3: 1 of 2"))
        // B3's scan made it the active task (A1 is first in pick order but not picked).
        let list = try await fixture.scanpick(["pick-list", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [String: Any])
        #expect(object["activeTaskId"] as? String == b3)
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [0, 1, 1])
    }

    /// With `scanning.scanToSelect` false, another unfinished task's code is refused naming where it
    /// belongs and the current pick, and counts nothing; the current pick's code still counts.
    @Test func withScanToSelectOffAnotherTasksCodeIsRefused() async throws {
        let fixture = try await StationFixture(stationConfig: ["scanning": ["scanToSelect": false]])
        let run = try await fixture.wedge(["5901234123457", "036000291452"], expecting: 2)
        #expect(run.scans.map { $0["reason"] as? String } == ["other_task", nil])
        #expect(run.standardOutput.contains("✗ SKU-B3: that is for B3; the current pick is A1"))
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [1, 0, 0])
    }

    @Test func aMismatchIsNeverQueuedAndGTINFormsMatch() async throws {
        let fixture = try await StationFixture()
        // No task of the batch has this Code 39: it is refused, and nothing reaches the queue.
        let wrong = try fixture.frames("wrong", [("clean/code39.png", 5)])
        let refused = try await fixture.scanpick(["station", "--frames", wrong])
        #expect(refused.standardOutput.contains("✗ Wrong item: that is not SKU-A1 for A1"))
        let queue = try await fixture.scanpick(["queue", "--json"])
        #expect(queue.standardOutput == "[]\n")

        // A wedge scanner that sends the UPC-A as its EAN-13 form: the same item.
        let wedge = try await fixture.wedge(["0036000291452", "", "nonsense"], expecting: 2)
        #expect(wedge.status == 0)
        #expect(wedge.scans.map { $0["accepted"] as? Bool } == [true, false])
        _ = try await fixture.scanpick(["drain"])
        #expect(try await fixture.picked() == [1, 0, 0])
    }

    @Test func selectingATaskChangesWhatScansAreCheckedAgainst() async throws {
        let fixture = try await StationFixture()
        #expect(
            try await fixture.scanpick(["select", fixture.scenario.tasks[1]]).standardOutput.hasPrefix("active: B3"))
        try await fixture.server.stop()  // in the dead spot: the scans stay queued, the rows marked pending
        let wedge = try await fixture.wedge(["5901234123457", "5901234123457", "5901234123457"], expecting: 3)
        #expect(wedge.scans.map { $0["accepted"] as? Bool } == [true, true, false])
        #expect(wedge.standardOutput.contains("✗ Already complete: SKU-B3 at B3, 2 of 2 picked"))
        let list = try await fixture.scanpick(["pick-list", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [String: Any])
        #expect(object["activeTaskId"] as? String == fixture.scenario.tasks[0])
        let tasks = try #require(object["tasks"] as? [[String: Any]])
        #expect(tasks[1]["qtyPicked"] as? Int == 2)
        #expect(tasks[1]["pending"] as? Bool == true)
        #expect(tasks[0]["pending"] as? Bool == false)
        #expect(try await fixture.scanpick(["select", "task-nope"]).status == 1)
    }

    @Test func scansWithNoOpenBatchAreTurnedAway() async throws {
        let fixture = try await StationFixture(openBatch: false)
        let wedge = try await fixture.wedge(["036000291452"], expecting: 1, arguments: ["--org", "acme"])
        #expect(wedge.scans.first?["reason"] as? String == "no_open_batch")
        #expect(wedge.standardOutput.contains("No batch is open"))
    }

    @Test func scanningOffNeverOpensAFrameSource() async throws {
        let fixture = try await StationFixture(scanning: false)
        // A folder that does not exist: opening it would fail; with scanning off nothing is opened.
        let result = try await fixture.scanpick(["station", "--frames", fixture.folder.file("no-such-folder")])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("scanning is off for organisation acme"))
        #expect(StationFixture.scanLines(result).isEmpty)
        // A wedge scanner is not read: the page says scanning is off, and taps still work.
        let station = try await StationProcess(config: fixture.config)
        station.scan("036000291452")
        let page = APIClient(station.page, token: nil)
        #expect(try await page.get("/api/status").json["scanner"] as? String == "scanning off")
        #expect(try await fixture.scanpick(["tap", "pick", fixture.scenario.tasks[0], "--org", "acme"]).status == 0)
        #expect(await station.stop() == 0)
        #expect(station.logLines.filter { $0["event"] as? String == "scan" }.isEmpty)
    }

    @Test func openingABatchTheFirstTimeNeedsTheServerButReopeningDoesNot() async throws {
        let fixture = try await StationFixture()
        try await fixture.server.stop()
        let reopen = try await fixture.scanpick(["batch", "open", fixture.scenario.batchId, "--org", "acme"])
        #expect(reopen.status == 0)
        #expect(reopen.standardOutput.contains("reopened batch \(fixture.scenario.batchId) from the station's cache"))
        let never = try await fixture.scanpick(["batch", "open", "batch-never-seen", "--org", "acme"])
        #expect(never.status == 1)
        #expect(never.standardError.contains("opening it the first time needs the server"))
    }

    @Test func aScanIsNeverQueuedForAnOrganisationWithScanningOff() async throws {
        // acme has scanning on, globex off; globex's batch is the one open on the station.
        let fixture = try await StationFixture(globexScanning: false)
        let globex = APIClient(fixture.server.baseURL, token: ServerProcess.tokens["globex"])
        let scenario = try await PickingScenario.create(on: globex)
        #expect(try await fixture.scanpick(["batch", "open", scenario.batchId, "--org", "globex"]).status == 0)

        let run = try await fixture.wedge(["036000291452"], expecting: 1, arguments: ["--org", "acme"])
        #expect(run.status == 0)
        let line = try #require(run.scans.first)
        #expect(line["accepted"] as? Bool == false)
        #expect(line["reason"] as? String == "scanning_off")
        #expect(run.standardOutput.contains("Scanning is off at this station"))
        #expect(line["org"] as? String == "globex")  // the log names the organisation, the picker's line does not
        #expect(try await fixture.scanpick(["queue", "--json"]).standardOutput == "[]\n")
        _ = try await fixture.scanpick(["drain"])
        #expect(try await scenario.picked(on: globex).values.allSatisfy { $0 == 0 })
    }
}
