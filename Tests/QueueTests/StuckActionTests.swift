import Foundation
import Queue
import ScanPickClient
import TestSupport
import Testing

/// One action the server fails on every time (500) must not hold the line in silence: after it has
/// failed for `queue.stuckAfterMinutes` and at least 5 tries, `attention` names it, and support can
/// park it behind the rest with its key.
@Suite struct StuckActionTests {
    /// A drainer to the fixture's proxy on `clock`, its jitter pinned to the top of its range.
    private func drainer(_ fixture: QueueFixture, clock: TestClock) -> Drainer {
        let transport = ScanPickHTTPClient(
            server: fixture.proxy.url, tokens: ["acme": QueueFixture.token], timeout: 5)
        return Drainer(
            queue: fixture.queue, transport: transport, backoff: BackoffPolicy(initial: 2, cap: 60),
            now: { clock.now }, unitRandom: { 1 })
    }

    private func attention(_ config: String) async throws -> [[String: Any]] {
        let status = try await ProcessRunner.scanpick(["status", "--json", "--config", config])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any],
            "\(status.standardError)")
        return json["attention"] as? [[String: Any]] ?? []
    }

    @Test func anActionTheServerFailsOnEveryTimeIsNamedAndParkedBehindTheRest() async throws {
        let fixture = try await QueueFixture(bulkQty: 1000)
        let config = try fixture.stationConfig(server: fixture.proxy.url)
        let first = try fixture.queue.enqueue(
            .pick(org: "acme", pickTaskId: fixture.scenario.tasks[0], location: "A1", qty: 1, worker: "w"))
        let key = try #require(try fixture.queue.action(first)?.idempotencyKey)
        for _ in 0..<37 { _ = try fixture.pick(3) }  // Z9, which needs 1000
        fixture.proxy.answer(key: key, with: .status(500))
        // The drainer's clock starts 14.5 minutes before the real one, which `scanpick status` reads:
        // nine tries 105 s apart take 14 minutes of it, and no test waits for any of them.
        let clock = TestClock(Date().addingTimeInterval(-870))
        let drainer = drainer(fixture, clock: clock)
        for tries in 1...9 {
            guard case .transient = try await drainer.drainPass(honouringBackoff: false).stop else {
                throw TestFailure("a 500 must be retried later")
            }
            let stuck = try await attention(config).filter { $0["code"] as? String == "action_stuck" }
            if tries < 5 {
                #expect(stuck.isEmpty, "after \(tries) tries: \(stuck)")  // fewer than 5 tries: not yet
            } else {
                #expect(stuck.count == 1, "after \(tries) tries")
            }
            if tries < 9 { clock.advance(105) }
        }
        // The real clock moves on while the passes run (a loaded machine takes seconds for them).
        let since = clock.now.addingTimeInterval(-840)
        let before = Int(Date().timeIntervalSince(since) / 60)
        let named = try await attention(config).first { $0["code"] as? String == "action_stuck" }
        let after = Int(Date().timeIntervalSince(since) / 60)
        let message = try #require(named?["message"] as? String)
        #expect(
            Set([before, after]).contains { minutes in
                message.hasPrefix(
                    "#\(first) pick A1 · ×1: the server answered 500 for \(minutes) min, 9 tries; the 37 actions behind it wait"
                )
            }, "\(message)")
        #expect(before >= 14)
        #expect(message.contains("scanpick queue park \(first)"))
        #expect(try await fixture.picked() == [0, 0, 0, 0])

        // Support parks it: it moves behind the rest with its key, and the rest go through.
        let park = try await ProcessRunner.scanpick([
            "queue", "park", "\(first)", "--by", "support-jo", "--config", config,
        ])
        #expect(park.status == 0, "\(park.standardError)")
        let moved = try #require(try fixture.queue.actions(in: [.pending]).last)
        #expect(moved.idempotencyKey == key)
        #expect(moved.id > first + 37)
        #expect(park.standardOutput.contains("#\(first) moved behind the 37 actions waiting, as #\(moved.id)"))
        #expect(try fixture.queue.action(first) == nil)
        #expect(try fixture.queue.log().first?.event == "park")
        #expect(try fixture.queue.log().first?.detail.contains(#""newId":\#(moved.id)"#) == true)
        let pass = try await drainer.drainPass(honouringBackoff: false)
        #expect(pass.sent == 37)
        #expect(try await fixture.picked() == [0, 0, 0, 37])
        #expect(try fixture.queue.action(moved.id)?.state == .pending)
        // Moved, it is judged afresh: its failing time starts again from its new place.
        #expect(try await attention(config).allSatisfy { $0["code"] as? String != "action_stuck" })

        // Once the server takes it, it counts once.
        fixture.proxy.answer(key: key, with: nil)
        #expect(try await drainer.drainPass(honouringBackoff: false).sent == 1)
        #expect(try await fixture.picked() == [1, 0, 0, 37])
    }
}

extension StuckActionTests {
    /// The threshold is read on the drainer's clock: five tries are not enough before
    /// `stuckAfter`, nor `stuckAfter` before five tries; a station that is offline is not stuck
    /// (the pill says offline), and parking never reorders a set-quantity with its task's picks.
    @Test func stuckNeedsBothTheTimeAndTheTriesAndParkKeepsSetQuantitiesInOrder() async throws {
        let fixture = try await QueueFixture(bulkQty: 1000)
        let clock = TestClock()
        let drainer = drainer(fixture, clock: clock)
        let head = try fixture.pick(3)
        let key = try #require(try fixture.queue.action(head)?.idempotencyKey)
        let behind = try fixture.pick(3)
        // Offline for an hour: transport failures only, never "stuck".
        let offline = ScanPickHTTPClient(
            server: URL(string: "http://127.0.0.1:9")!, tokens: ["acme": QueueFixture.token], timeout: 1)
        let unreachable = Drainer(
            queue: fixture.queue, transport: offline, backoff: BackoffPolicy(initial: 2, cap: 60), now: { clock.now })
        for _ in 0..<6 {
            _ = try await unreachable.drainPass(honouringBackoff: false)
            clock.advance(600)
        }
        #expect(try fixture.queue.action(head)?.tries == 6)
        #expect(try fixture.queue.stuckAction(now: clock.now, after: 600) == nil)

        // The server answers 500 from now: stuck once 10 minutes have passed, whatever the tries.
        fixture.proxy.answer(key: key, with: .status(500))
        let since = clock.now
        _ = try await drainer.drainPass(honouringBackoff: false)
        clock.advance(599)
        _ = try await drainer.drainPass(honouringBackoff: false)
        #expect(try fixture.queue.stuckAction(now: clock.now, after: 600) == nil)
        clock.advance(1)
        let stuck = try #require(try fixture.queue.stuckAction(now: clock.now, after: 600))
        #expect(stuck.id == head)
        #expect(stuck.lastStatus == 500)
        #expect(stuck.failingSince == since)
        #expect(stuck.tries == 8)
        #expect(stuck.behind == 1)
        #expect(
            stuck.attention(now: clock.now).message.contains("500 for 10 min, 8 tries; the 1 action behind it waits"))

        // A pick moves past a pick (increments add up in any order); an unknown id is refused by name.
        let third = try fixture.pick(3)
        #expect(try fixture.queue.park(behind, by: "support-jo") == .movedBehind(behind: 1, newId: third + 1))
        #expect(throws: QueueError.noSuchAction(behind)) { try fixture.queue.park(behind, by: "support-jo") }
        // A set-quantity behind it on its task: moving the pick past it would change the count.
        let setQty = try fixture.queue.enqueue(
            .setQty(org: "acme", pickTaskId: fixture.scenario.tasks[3], location: "Z9", from: 0, to: 5, worker: "w"))
        #expect(throws: QueueError.self) { try fixture.queue.park(head, by: "support-jo") }
        #expect(try fixture.queue.action(head)?.state == .pending)
        // Nor does a set-quantity move past a newer pick of its task.
        _ = try fixture.pick(3)
        #expect(throws: QueueError.self) { try fixture.queue.park(setQty, by: "support-jo") }
        #expect(try fixture.queue.action(setQty)?.state == .pending)
        // Nor does a tap move past a batch close: the taps before it must reach the server first.
        let early = try fixture.pick(0)
        _ = try fixture.queue.enqueue(.closeBatch(org: "acme", batchId: fixture.scenario.batchId, worker: "w"))
        #expect(throws: QueueError.self) { try fixture.queue.park(early, by: "support-jo") }
        #expect(try fixture.queue.action(early)?.state == .pending)
    }

    /// Park and drain, each in its own process, killed with SIGKILL at random moments while the head
    /// fails: no action is lost, none is doubled, and the server counts each once.
    @Test func parksAndDrainsKilledAtRandomLoseNothingAndCountNothingTwice() async throws {
        let fixture = try await QueueFixture(bulkQty: 1000)
        let config = try fixture.stationConfig(server: fixture.proxy.url)
        var random = SplitMix64(seed: 20_261_206)
        let failing = try fixture.pick(3)
        let key = try #require(try fixture.queue.action(failing)?.idempotencyKey)
        fixture.proxy.answer(key: key, with: .status(500))
        var queued = 1
        var keys: Set<String> = [key]
        for round in 0..<16 {
            for _ in 0..<3 {
                keys.insert(try #require(try fixture.queue.action(try fixture.pick(3))?.idempotencyKey))
                queued += 1
            }
            let head = try #require(try fixture.queue.actions(in: [.pending, .inFlight]).first?.id)
            let park = try ChildProcess(
                ProcessRunner.scanpick, ["queue", "park", "\(head)", "--by", "support-jo", "--config", config])
            let drain = try ChildProcess(ProcessRunner.scanpick, ["drain", "--config", config])
            if round.isMultiple(of: 2) {
                // The park runs to its end, racing the drain (refused while the head is in flight).
                try await onOwnThread { park.waitUntilExit() }
            } else {
                try await Task.sleep(for: .milliseconds(Int(random.next() % 300)))
            }
            for child in [park, drain] {
                if child.isRunning { kill(child.processIdentifier, SIGKILL) }
                child.waitUntilExit()
            }
        }
        // Every action is there once, under its own key, whatever was killed where.
        let actions = try fixture.queue.actions()
        #expect(actions.count == queued)
        #expect(Set(actions.map(\.idempotencyKey)) == keys)
        // Each move in the station log left its action under its new id, or moved it again later.
        let parks = try fixture.queue.log(limit: 1000).filter { $0.event == "park" }
        #expect(!parks.isEmpty)
        for entry in parks {
            let newId = try #require(entry.detail.firstMatch(of: /"newId":([0-9]+)/).flatMap { Int($0.1) })
            #expect(actions.contains { $0.id == newId } || parks.contains { $0.actionId == newId }, "\(entry)")
        }
        fixture.proxy.answer(key: key, with: nil)
        let final = try await ProcessRunner.scanpick(["drain", "--config", config])
        #expect(final.status == 0, "\(final.standardOutput)\(final.standardError)")
        #expect(try fixture.queue.counts().sent == queued)
        #expect(try await fixture.picked()[3] == queued)
    }
}
