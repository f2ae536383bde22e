import Synchronization

/// A value that changes while a process runs, and that services wait on: "scanning is on", say.
/// Any number of tasks may wait for it to reach a state; a cancellation ends a wait too.
///
///     let scanning = LiveValue(false)
///     await scanning.wait { $0 }       // in a service: until switched on (or cancelled)
///     scanning.set(true)               // anywhere
public final class LiveValue<Value: Sendable & Equatable>: Sendable {
    private struct Waiter {
        let until: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state: Mutex<State>

    public init(_ value: Value) { state = Mutex(State(value: value)) }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// Sets the value; returns whether it changed (then the waits it satisfies end).
    @discardableResult
    public func set(_ value: Value) -> Bool {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
            guard state.value != value else { return nil }
            state.value = value
            let satisfied = state.waiters.filter { $0.value.until(value) }
            for id in satisfied.keys { state.waiters[id] = nil }
            return satisfied.values.map(\.continuation)
        }
        woken?.forEach { $0.resume() }
        return woken != nil
    }

    /// Waits until `condition` holds for the value (at once if it does now), or until the task is
    /// cancelled; returns the value then.
    @discardableResult
    public func wait(until condition: @escaping @Sendable (Value) -> Bool) async -> Value {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard !condition(state.value), !Task.isCancelled else { return false }
                    state.waiters[id] = Waiter(until: condition, continuation: continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
        return value
    }
}
