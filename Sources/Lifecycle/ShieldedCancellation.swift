/// Runs `body` in a task of its own that a cancellation never reaches: when the calling task is
/// cancelled, `onCancel` runs instead (it must make `body` end soon: set a flag, ring a
/// ``WakeUp``), and this still waits for `body` to end. For a service whose work must not be
/// cancelled halfway: cancelling a task inside URLSession's `data(for:)` as its request completes
/// deadlocks on Linux (swift_task_cancel and URLSession's completion each wait for the other's lock).
///
///     func run() async {
///         await withShieldedCancellation { await self.probeUntilStopped() } onCancel: { self.requestStop() }
///     }
public func withShieldedCancellation<T: Sendable>(
    _ body: @escaping @Sendable () async -> T, onCancel: @escaping @Sendable () -> Void
) async -> T {
    let work = Task { await body() }
    return await withTaskCancellationHandler {
        await work.value
    } onCancel: {
        onCancel()
    }
}
