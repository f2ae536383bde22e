import Dispatch
import Foundation
import Synchronization

/// The process's one handler of Unix signals: SIGINT and SIGTERM become a stop (for a
/// ``ServiceGroup``), SIGHUP a reload (for whoever reads ``reloads``). Made first thing in a
/// long-running command, before its config is read: a stop asked for while the process starts (a
/// service manager's, right after its start) is kept for the group, where the default action would
/// have ended the process on the spot. Taken over for good: the default action stays off after the
/// group has stopped (a second SIGTERM must not cut a shutdown short). Delivered through Dispatch
/// rather than a C handler.
///
///     let signals = UnixSignals.takeOver()          // first thing
///     let group = ServiceGroup(services, stopSignals: signals.stops, logger: logger)
///     for await _ in signals.reloads { reload() }   // a service's loop
public final class UnixSignals: Sendable {
    /// SIGINT and SIGTERM, by number, in the order they came.
    public let stops: AsyncStream<Int32>
    /// One element per SIGHUP (several coming at once may be one).
    public let reloads: AsyncStream<Void>
    private let sources: Mutex<[any DispatchSourceSignal]>

    private static let taken = Mutex<UnixSignals?>(nil)

    /// Takes SIGINT, SIGTERM and SIGHUP over for the whole process; a second call returns the first's.
    public static func takeOver() -> UnixSignals {
        taken.withLock { taken in
            if let taken { return taken }
            let signals = UnixSignals()
            taken = signals
            return signals
        }
    }

    private init() {
        let (stops, stopping) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let (reloads, reloading) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.stops = stops
        self.reloads = reloads
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            if number == SIGHUP {
                source.setEventHandler { reloading.yield() }
            } else {
                source.setEventHandler { stopping.yield(number) }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    /// The name of a stop signal for the log (`SIGTERM`).
    public static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}
