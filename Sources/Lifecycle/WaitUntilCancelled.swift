import Waking

/// Returns when the calling task is cancelled: a service whose work runs elsewhere (threads of a
/// server, a device's callbacks) waits here for its stop.
///
///     func run() async throws {
///         await waitUntilCancelled()
///         server.stop()
///     }
public func waitUntilCancelled() async {
    let wake = WakeUp()
    while !Task.isCancelled { await wake.sleep(for: .seconds(86_400)) }
}
