internal import CThreadName
import Dispatch
import Foundation
import Synchronization

/// A fixed number of threads running jobs that may block (database work) in arrival order, with a
/// bounded queue: a job that finds the queue full is refused instead of waiting without limit.
///
///     let pool = WorkerPool(threads: 16, maxQueued: 1024, name: "http-worker")
///     let accepted = pool.submit(WorkerPool.Job(run: { answer(request) }, cancel: { refuse(request) }))
///     pool.cancelQueued()  // the jobs not started yet get their cancel
///     pool.stop()
final class WorkerPool: Sendable {
    /// Work to run, and what to do instead if the pool stops before it starts.
    struct Job: Sendable {
        let run: @Sendable () -> Void
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var jobs: [Job?]
        var head = 0
        var count = 0
        var stopping = false
        /// Whether the threads have been told to end.
        var threadsTold = false
    }

    private let state: Mutex<State>
    private let capacity: Int
    /// Counts queued jobs (and, when stopping, one wake-up per thread).
    private let ready = DispatchSemaphore(value: 0)
    private let threadCount: Int
    private let finished = DispatchGroup()
    /// When each thread's job in hand began (uptime ns; 0: waiting for one).
    private let startedAt: Mutex<[UInt64]>

    init(threads: Int, maxQueued: Int, name: String) {
        capacity = max(1, maxQueued)
        threadCount = max(1, threads)
        state = Mutex(State(jobs: Array(repeating: nil, count: capacity)))
        startedAt = Mutex(Array(repeating: 0, count: max(1, threads)))
        for index in 0..<threadCount {
            finished.enter()
            let thread = Thread { [self] in
                _ = scanpick_name_this_thread(String("\(name)-\(index)".prefix(15)))  // for top -H and perf
                work(index)
                finished.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues `job`; false when the queue is full or the pool is stopping (the job will not run).
    func submit(_ job: Job) -> Bool {
        let queued = state.withLock { state in
            guard !state.stopping, state.count < capacity else { return false }
            state.jobs[(state.head + state.count) % capacity] = job
            state.count += 1
            return true
        }
        if queued { ready.signal() }
        return queued
    }

    /// Refuses new jobs and calls `cancel` of each job that has not started.
    func cancelQueued() {
        let cancelled: [Job] = state.withLock { state in
            state.stopping = true
            var taken: [Job] = []
            while state.count > 0 {
                if let job = state.jobs[state.head] { taken.append(job) }
                state.jobs[state.head] = nil
                state.head = (state.head + 1) % capacity
                state.count -= 1
            }
            return taken
        }
        for job in cancelled { job.cancel() }
    }

    /// Refuses new jobs, lets the queued ones run, and waits for every thread to end. Safe to call twice.
    func stop() {
        let first = state.withLock { state in
            defer {
                state.stopping = true
                state.threadsTold = true
            }
            return !state.threadsTold
        }
        if first {
            for _ in 0..<threadCount { ready.signal() }
        }
        finished.wait()
    }

    /// How long the longest-running job in hand has run (nanoseconds; 0 when every thread waits).
    var longestRunningJob: UInt64 {
        // `now` is read inside the lock: read before it, a job that started in between would be
        // "later than now" and a wrapped difference would look like a job stuck for centuries.
        startedAt.withLock { starts in
            let now = DispatchTime.now().uptimeNanoseconds
            return starts.map { $0 == 0 || $0 > now ? 0 : now - $0 }.max() ?? 0
        }
    }

    private func work(_ index: Int) {
        while true {
            ready.wait()
            let job: Job? = state.withLock { state in
                guard state.count > 0 else { return nil }  // only a stop's wake-up leaves nothing
                defer {
                    state.jobs[state.head] = nil
                    state.head = (state.head + 1) % capacity
                    state.count -= 1
                }
                return state.jobs[state.head]
            }
            guard let job else { return }
            startedAt.withLock { $0[index] = DispatchTime.now().uptimeNanoseconds }
            job.run()
            startedAt.withLock { $0[index] = 0 }
        }
    }
}
