import Foundation
import Queue
import TestSupport
import Testing

/// A drainer process killed with SIGKILL at random moments, including after the server committed
/// and before the station recorded it, must lose nothing and count nothing twice.
@Suite struct CrashSafetyTests {
    @Test(arguments: ServerStoreKind.allCases)
    func killedDrainersLoseNothingAndCountNothingTwice(store: ServerStoreKind) async throws {
        let fixture = try await QueueFixture(store: store, bulkQty: 1000)
        let config = try fixture.stationConfig(server: fixture.proxy.url)
        var random = SplitMix64(seed: 20_261_130)
        var queued = 0
        var killedHoldingAFirstAnswer = 0
        for round in 0..<12 {
            let count = 1 + round % 3
            for _ in 0..<count { _ = try fixture.pick(3) }
            queued += count
            let afterCommit = !round.isMultiple(of: 2)
            if afterCommit {
                // The server commits the first action it has not seen before, and its answer is held
                // back until the kill: the kill lands between "sent" and "recorded", however slow the
                // machine. (A resend of an action left in flight goes through and is recorded.)
                fixture.proxy.holdAnswers(to: "/api/picking/pick", newKeysOnly: true)
            } else {
                // The server commits each action, then its answer is held back a while.
                fixture.proxy.script(Array(repeating: .holdAnswer(seconds: 0.25), count: count))
            }
            let drain = try ChildProcess(ProcessRunner.scanpick, ["drain", "--config", config])
            defer {  // however the round ends: no drainer left running, no proxy thread left held
                if drain.isRunning { kill(drain.processIdentifier, SIGKILL) }
                drain.waitUntilExit()
                fixture.proxy.releaseHeldAnswers()
                fixture.proxy.clearScript()
            }
            if afterCommit {
                #expect(await eventually { fixture.proxy.heldAnswers > 0 }, "round \(round): no answer to hold")
                try await Task.sleep(for: .milliseconds(Int(random.next() % 50)))
            } else {
                // Anywhere: before it starts, while it reads its queue, while it sends.
                try await Task.sleep(for: .milliseconds(Int(random.next() % 450)))
            }
            if afterCommit, fixture.proxy.heldAnswers > 0 { killedHoldingAFirstAnswer += 1 }
            kill(drain.processIdentifier, SIGKILL)
        }
        // Six first commits of an action whose answer the station never recorded: each must be
        // replayed below, not counted again.
        #expect(killedHoldingAFirstAnswer == 6)

        let final = try await ProcessRunner.scanpick(["drain", "--config", config])
        #expect(final.status == 0, "\(final.standardOutput)")
        let counts = try fixture.queue.counts()
        #expect(counts.pending == 0)
        #expect(counts.inFlight == 0)
        #expect(counts.dead == 0)
        #expect(counts.sent == queued)
        #expect(try await fixture.picked()[3] == queued)
        // Some keys reached the server more than once, and were counted once. The server writes a
        // request's log line after its answer has gone, so the last replay's line may still be on its way.
        #expect(await eventually { fixture.server.log.contains(#""replayed":true"#) })
    }
}

/// A small seeded generator, so a failing run can be repeated exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
