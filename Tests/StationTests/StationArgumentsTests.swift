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

    @Test func withSeveralOrganisationsAndNoBatchItAsksWhichOne() async throws {
        let fixture = try await StationFixture(openBatch: false, globexScanning: false)
        let config = fixture.config
        let result = try await ProcessRunner.scanpick(["station", "--wedge", "--config", config])
        #expect(result.status == 2)
        #expect(result.standardError.contains("which organisation? open a batch or pass --org ORG"))
        #expect(result.standardOutput.isEmpty)
    }
}
