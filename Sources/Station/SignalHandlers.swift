import Dispatch
import Foundation

/// Signals handled through Dispatch rather than C handlers (their default action is turned off), so
/// a running station can stop in order (SIGINT, SIGTERM) or re-read its config (SIGHUP).
///
///     let signals = SignalHandlers([SIGTERM: { service.stop() }, SIGHUP: { service.reload() }])
///     signals.cancel()
final class SignalHandlers: @unchecked Sendable {
    // Set once in `init` and never changed; cancelling a dispatch source is thread-safe.
    private let sources: [any DispatchSourceSignal]

    init(_ handlers: [Int32: @Sendable () -> Void]) {
        sources = handlers.map { number, handler in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
