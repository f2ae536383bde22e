import Dispatch
import Foundation
import Synchronization

/// A fixed number of threads running jobs that may block (database work) in arrival order, with a
/// bounded queue: a job that finds the queue full is refused instead of waiting without limit.
///
///     let pool = WorkerPool(threads: 16, maxQueued: 1024, name: "http-worker")
///     let accepted = pool.submit { answer(request) }
///     pool.stop()  // runs what is queued, then ends the threads
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        var jobs: [Job?]
        var head = 0
        var count = 0
        var stopping = false
    }

    private let state: Mutex<State>
    private let capacity: Int
    /// Counts queued jobs (and, when stopping, one wake-up per thread).
    private let ready = DispatchSemaphore(value: 0)
    private let threadCount: Int
    private let finished = DispatchGroup()

    init(threads: Int, maxQueued: Int, name: String) {
        capacity = max(1, maxQueued)
        threadCount = max(1, threads)
        state = Mutex(State(jobs: Array(repeating: nil, count: capacity)))
        for index in 0..<threadCount {
            finished.enter()
            let thread = Thread { [self] in
                work()
                finished.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues `job`; false when the queue is full or the pool is stopping (the job will not run).
    func submit(_ job: @escaping Job) -> Bool {
        let queued = state.withLock { state in
            guard !state.stopping, state.count < capacity else { return false }
            state.jobs[(state.head + state.count) % capacity] = job
            state.count += 1
            return true
        }
        if queued { ready.signal() }
        return queued
    }

    /// Refuses new jobs, lets the queued ones run, and waits for every thread to end. Safe to call twice.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first {
            for _ in 0..<threadCount { ready.signal() }
        }
        finished.wait()
    }

    private func work() {
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
            job()
        }
    }
}
