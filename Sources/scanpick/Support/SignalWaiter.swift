import Dispatch
import Foundation
import Synchronization

/// Some signals (SIGINT, SIGTERM) taken over from the moment it is made, delivered through Dispatch
/// rather than a C handler so the program can shut down in order. Made before a program starts
/// anything, it keeps a signal that comes while it is still starting (a service stopped right after
/// its start) for ``first()``, where the default action would have ended it on the spot.
///
///     let signals = SignalWaiter([SIGINT, SIGTERM])   // first thing
///     …
///     let signal = await signals.first()
final class SignalWaiter: @unchecked Sendable {  // `sources` is set once; Dispatch's sources are thread-safe
    private struct State {
        var arrived: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
    }
    private let state = Mutex(State())
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32]) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: number, queue: .global()))
        }
        self.sources = sources
        for (number, source) in zip(signals, sources) {
            source.setEventHandler { [weak self] in self?.arrive(number) }
            source.resume()
        }
    }

    /// The first of the signals, once it has come (at once if it came already).
    func first() async -> Int32 {
        await withCheckedContinuation { continuation in
            let arrived = state.withLock { state -> Int32? in
                guard state.arrived == nil else { return state.arrived }
                state.waiter = continuation
                return nil
            }
            if let arrived { continuation.resume(returning: arrived) }
        }
    }

    private func arrive(_ number: Int32) {
        let waiter = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard state.arrived == nil else { return nil }  // the first counts
            state.arrived = number
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: number)
    }
}
