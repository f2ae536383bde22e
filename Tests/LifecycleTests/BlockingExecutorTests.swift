import Foundation
import Synchronization
import Testing

@testable import Lifecycle

/// Blocking work runs on named threads of its own, never on the task pool's.
@Suite(.timeLimit(.minutes(3))) struct BlockingExecutorTests {
    struct Refused: Error, Equatable {}

    @Test func workRunsOnTheExecutorsNamedThreadsAndReturnsOrThrows() async throws {
        let executor = BlockingExecutor(name: "test-pool", threads: 2)
        let name = await executor.run { Thread.current.name ?? "" }
        #expect(name.hasPrefix("test-pool-"), "\(name)")
        await #expect(throws: Refused()) { try await executor.run { () throws(Refused) -> Int in throw Refused() } }
        let own = await BlockingExecutor.runOnOwnThread(named: "scanner-1") { Thread.current.name ?? "" }
        #expect(own == "scanner-1")
    }

    /// More blocking calls than threads: each waits its turn, none is lost, and the task pool stays
    /// free meanwhile (a task runs while every pool thread blocks).
    @Test func moreCallsThanThreadsAllFinishAndThePoolStaysFree() async throws {
        let executor = BlockingExecutor(name: "busy", threads: 2)
        let release = DispatchSemaphore(value: 0)
        let calls = (0..<6).map { number in
            Task {
                await executor.run {
                    release.wait()
                    return number
                }
            }
        }
        let stillFree = Task { 42 }
        #expect(await stillFree.value == 42)  // both executor threads are blocked, the pool is not
        for _ in calls { release.signal() }
        var numbers: [Int] = []
        for call in calls { numbers.append(await call.value) }
        #expect(numbers == Array(0..<6))
    }

    /// A burst of calls while one thread idles grows the pool to its limit: calls that wait for one
    /// another all run at once, none queued behind the idle thread.
    @Test func aBurstGrowsThePoolInsteadOfQueueingBehindAnIdleThread() async throws {
        final class Running: Sendable { let count = Atomic(0) }
        let executor = BlockingExecutor(name: "burst", threads: 4)
        _ = await executor.run { 0 }  // one thread made, idle now
        let running = Running()
        let calls = (0..<4).map { _ in
            Task {
                await executor.run { () -> Bool in
                    running.count.add(1, ordering: .relaxed)
                    let deadline = ContinuousClock.now + .seconds(20)
                    while running.count.load(ordering: .relaxed) < 4, ContinuousClock.now < deadline { usleep(1000) }
                    return running.count.load(ordering: .relaxed) == 4
                }
            }
        }
        for call in calls { #expect(await call.value, "the four calls did not all run at once") }
    }
}
