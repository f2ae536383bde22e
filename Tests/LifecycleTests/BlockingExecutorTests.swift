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

    /// The kernel keeps 15 bytes of a thread's name: a longer one is shortened so that names that
    /// differ at the end (a number) stay apart, never cut inside a character, and the thread is
    /// called what the kernel shows.
    @Test func longThreadNamesAreShortenedAndStayDistinct() async {
        #expect(BlockingExecutor.kernelName("scanner-3") == "scanner-3")
        #expect(BlockingExecutor.kernelName("exactly-15-byte") == "exactly-15-byte")
        let twelve = BlockingExecutor.kernelName("scanpick-scanner-12")
        #expect(twelve == "scanpick~ner-12")
        #expect(BlockingExecutor.kernelName("scanpick-scanner-13") != twelve)
        let accented = BlockingExecutor.kernelName("caméra-éééééé-1")  // 22 bytes: é is 2
        #expect(accented.utf8.count <= 15 && accented.hasPrefix("caméra") && accented.hasSuffix("-1"), "\(accented)")
        for length in 0...40 {
            let name = String(repeating: "é", count: length)
            #expect(BlockingExecutor.kernelName(name).utf8.count <= 15)
        }
        let own = await BlockingExecutor.runOnOwnThread(named: "scanpick-page-events") { Thread.current.name ?? "" }
        #expect(own == "scanpick~events")
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
