internal import CThreadName
import Dispatch
import Foundation
import Synchronization

/// Where blocking work runs (SQLite, V4L2, evdev, a file): on threads of its own, named for `top -H`,
/// never on Swift's cooperative pool, whose few threads (two on a pick station) a blocked call would
/// take from every task. Short calls share a small pool (``run(_:)``); a loop that blocks for as long
/// as the service runs (a camera's frames, a scanner's keys) gets a thread of its own
/// (``runOnOwnThread(named:_:)``). As swift-nio's `NIOThreadPool`: the work is not interrupted by a
/// cancellation (close the device to end a loop blocked on it).
///
///     let counts = try await BlockingExecutor.shared.run { try queue.counts() }
///     try await BlockingExecutor.runOnOwnThread(named: "scanner-1") { try scanner.readUntilClosed() }
public final class BlockingExecutor: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var threads = 0
        var idle = 0
    }

    private let name: String
    private let limit: Int
    private let state = Mutex(State())
    private let jobArrived = DispatchSemaphore(value: 0)

    /// The process's pool: 4 threads named `blocking-1` … (made as work needs them, then kept).
    public static let shared = BlockingExecutor(name: "blocking", threads: 4)

    /// A pool of at most `threads` threads named `name-1`, `name-2` …
    public init(name: String, threads: Int) {
        self.name = name
        limit = max(1, threads)
    }

    /// Runs `work` on one of the pool's threads and returns what it returned (or throws what it threw).
    public func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            submit {
                do throws(E) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Runs `work` on a new thread called `name` (as ``kernelName(_:)`` shortens it), for a loop
    /// that blocks as long as its service runs; returns when it does.
    public static func runOnOwnThread<T: Sendable, E: Error>(
        named name: String, _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let name = kernelName(name)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            let thread = Thread {
                _ = scanpick_name_this_thread(name)
                do throws(E) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = name
            thread.start()
        }
        return try result.get()
    }

    /// The longest thread name the kernel keeps, in bytes (`top -H`, `ps -L`, `perf` show it).
    static let nameLimit = 15

    /// `name` as a thread can be called: unchanged when it fits in ``nameLimit`` bytes, else its
    /// start and its end (where a number tells threads apart) joined by `~`, cut between characters,
    /// so that `scanpick-scanner-12` is `scanpick~ner-12`, not the `scanpick-scanne` of every scanner.
    static func kernelName(_ name: String) -> String {
        guard name.utf8.count > nameLimit else { return name }
        let headLimit = (nameLimit - 1) / 2 + 1
        var head = ""
        for character in name {
            guard head.utf8.count + character.utf8.count <= headLimit else { break }
            head.append(character)
        }
        var tail = ""
        for character in name.reversed() {
            guard head.utf8.count + 1 + tail.utf8.count + character.utf8.count <= nameLimit else { break }
            tail.insert(character, at: tail.startIndex)
        }
        return head + "~" + tail
    }

    private func submit(_ job: @escaping @Sendable () -> Void) {
        let newThread = state.withLock { state -> Int? in
            state.jobs.append(job)
            // Each idle thread takes one waiting job: a job beyond them needs a thread of its own
            // (a burst must not queue behind one thread while the pool may grow).
            guard state.jobs.count > state.idle, state.threads < limit else { return nil }
            state.threads += 1
            return state.threads
        }
        jobArrived.signal()
        guard let number = newThread else { return }
        let threadName = Self.kernelName("\(name)-\(number)")
        let thread = Thread { [self] in
            _ = scanpick_name_this_thread(threadName)
            workForever()
        }
        thread.name = threadName
        thread.start()
    }

    private func workForever() {
        while true {
            state.withLock { $0.idle += 1 }
            jobArrived.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                state.idle -= 1
                return state.jobs.isEmpty ? nil : state.jobs.removeFirst()
            }
            job?()
        }
    }
}
