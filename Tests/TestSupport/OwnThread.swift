import Foundation

/// Runs blocking work (a socket read with a timeout, a semaphore wait, a process start) on a thread
/// of its own and awaits its result, so that it never holds one of the few threads of Swift's task
/// pool: a full parallel test run has two, and a test blocking one for seconds starves the others.
///
///     let reply = try await onOwnThread { connection.readResponse(timeout: .seconds(5)) }
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
