import Dispatch
import Synchronization
import Testing

@testable import HTTPServing

/// The pool's busy-for figure feeds the server's watchdog: a wrong huge value would make systemd
/// restart a healthy server.
@Suite struct WorkerPoolTests {
    /// Workers start jobs while the watchdog reads: every reading is at most the test's own age.
    @Test func longestRunningJobNeverExceedsTheTimeSinceTheJobsBegan() {
        let pool = WorkerPool(threads: 8, maxQueued: 4096, name: "pool-test")
        let began = DispatchTime.now().uptimeNanoseconds
        let done = Atomic<Int>(0)
        let submitted = 20_000
        DispatchQueue.global().async {
            var accepted = 0
            while accepted < submitted {
                if pool.submit(WorkerPool.Job(run: { done.add(1, ordering: .relaxed) }, cancel: {})) { accepted += 1 }
            }
        }
        var worst: UInt64 = 0
        var readings = 0
        while done.load(ordering: .relaxed) < submitted {
            worst = max(worst, pool.longestRunningJob)
            readings += 1
        }
        let age = DispatchTime.now().uptimeNanoseconds - began
        pool.stop()
        #expect(readings > 0)
        #expect(worst <= age, "a reading of \(worst) ns after \(age) ns")
    }
}
