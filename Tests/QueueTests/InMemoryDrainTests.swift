import Foundation
import Queue
import TestSupport
import Testing
import Wire

/// The drainer's rules on an in-memory API (no server process): what is sent, in which order, how
/// often, and what a refusal, a lost answer or a paused organisation does to the rest of the line.
/// The same rules against a real server and a fault proxy are in `DrainerTests`.
@Suite struct InMemoryDrainTests {
    let folder: TemporaryDirectory
    let queue: ActionQueue
    let clock = TestClock()
    let api = InMemoryAPI(tokens: ["acme": "a", "globex": "g"])

    init() throws {
        folder = try TemporaryDirectory("scanpick-drain")
        queue = try ActionQueue(path: folder.file("station.sqlite"))
        api.add(Self.batch("batch-a", tasks: ["t1", "t2"]), org: "acme")
        api.add(Self.batch("batch-g", tasks: ["g1"]), org: "globex")
    }

    static func batch(_ id: String, tasks: [String]) -> Batch {
        Batch(
            id: id,
            tasks: tasks.map {
                PickTask(
                    id: $0, batchId: id, orderId: "o", lineId: $0, sku: "SKU", location: "A1", barcode: "036000291452",
                    qtyRequired: 10, qtyPicked: 0, qtyLocked: 0)
            })
    }

    var drainer: Drainer {
        let clock = clock
        return Drainer(
            queue: queue, transport: api, backoff: BackoffPolicy(initial: 2, cap: 60), now: { clock.now },
            unitRandom: { 1 })
    }

    @discardableResult
    func pick(_ task: String, org: String = "acme", qty: Int = 1) throws -> Int {
        try queue.enqueue(.pick(org: org, pickTaskId: task, location: nil, qty: qty, worker: "w"))
    }

    func picked(_ batch: String, _ task: String) -> Int? {
        api.batch(batch)?.tasks.first { $0.id == task }?.qtyPicked
    }

    @Test func theLineIsSentOldestFirstEachActionOnceWithItsOwnKey() async throws {
        let ids = [try pick("t1", qty: 2), try pick("t2"), try pick("t1", qty: 3)]
        let pass = try await drainer.drainPass()
        #expect(pass == DrainPass(sent: 3, dead: 0, stop: .empty))
        let keys = try ids.map { id in try #require(try queue.action(id)).idempotencyKey }
        #expect(api.delivered.map(\.idempotencyKey) == keys)
        #expect(picked("batch-a", "t1") == 5 && picked("batch-a", "t2") == 1)
        #expect(try await drainer.drainPass() == DrainPass(sent: 0, dead: 0, stop: .empty))
        #expect(api.attempts == 3)
    }

    /// The server committed, its answer was lost: the action stays pending, is sent again after its
    /// backoff under the same key, and counts once.
    @Test func aLostAnswerIsSentAgainUnderItsKeyAndCountsOnce() async throws {
        try pick("t1", qty: 4)
        api.loseNextAnswers()
        let first = try await drainer.drainPass()
        guard case .transient(_, let retryAt) = first.stop else {
            Issue.record("\(first)")
            return
        }
        #expect(try queue.counts().pending == 1)
        #expect(try await drainer.drainPass().stop == .notDue(until: retryAt))  // its backoff holds
        clock.advance(retryAt.timeIntervalSince(clock.now) + 0.001)
        #expect(try await drainer.drainPass().sent == 1)
        #expect(api.attempts == 2)
        #expect(api.delivered.count == 1)
        #expect(picked("batch-a", "t1") == 4)
    }

    /// A refusal of one action makes it a dead letter, and the line goes on behind it.
    @Test func aRefusedActionGoesDeadAndTheLineGoesOn() async throws {
        let refused = try pick("t1")
        try pick("t2")
        api.answerNext([.refused(status: 422, reason: "over_pick: too many")])
        let pass = try await drainer.drainPass()
        #expect(pass.sent == 1 && pass.dead == 1)
        #expect(try queue.action(refused)?.state == .dead)
        #expect(try queue.action(refused)?.lastError == "over_pick: too many")
        #expect(picked("batch-a", "t2") == 1 && picked("batch-a", "t1") == 0)
    }

    /// A refusal of one organisation's token pauses its actions only; the others go on in order.
    @Test func aRefusedTokenPausesThatOrganisationOnly() async throws {
        let acme = try pick("t1")
        try pick("g1", org: "globex")
        api.answerNext([
            .paused(Attention(code: "unauthorized", message: "the server refused acme's token"), status: 401)
        ])
        let pass = try await drainer.drainPass()
        #expect(pass.sent == 1)
        #expect(picked("batch-g", "g1") == 1)
        #expect(try queue.action(acme)?.state == .pending)
        #expect(try queue.pauses().map(\.org) == ["acme"])
        // Nothing went dead, and once the organisation is resumed its action goes.
        try queue.resume(org: "acme")
        #expect(try await drainer.drainPass().sent == 1)
        #expect(picked("batch-a", "t1") == 1)
    }

    /// The network is gone: the pass stops at the head, which waits; nothing is lost or reordered.
    @Test func anUnreachableServerStopsThePassAndKeepsTheLine() async throws {
        try pick("t1")
        try pick("t2")
        api.reachable = false
        let pass = try await drainer.drainPass(honouringBackoff: false)
        #expect(pass.sent == 0)
        guard case .transient = pass.stop else {
            Issue.record("\(pass)")
            return
        }
        #expect(try queue.counts().pending == 2)
        api.reachable = true
        #expect(try await drainer.drainPass(honouringBackoff: false).sent == 2)
        #expect(api.delivered.map(\.pickTaskId) == ["t1", "t2"])
    }
}
