import Dispatch
import Foundation

/// Waits for the first of some signals (SIGINT, SIGTERM), delivered through Dispatch rather than a
/// C handler, so the program can shut down in order.
enum SignalWaiter {
    static func wait(for signals: [Int32]) async -> Int32 {
        await withCheckedContinuation { continuation in
            let once = OnceResumer(continuation)
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { once.resume(number) }
                source.resume()
                once.keep(source)
            }
        }
    }
}

/// Resumes a continuation once, whichever signal comes first, and keeps the sources alive.
private final class OnceResumer: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Int32, Never>) { self.continuation = continuation }

    func keep(_ source: any DispatchSourceSignal) {
        lock.withLock { sources.append(source) }
    }

    func resume(_ signal: Int32) {
        let pending = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: signal)
    }
}
