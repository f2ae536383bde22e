import Synchronization

/// The lines a test's logger wrote, in order.
public final class CollectedLog: Sendable {
    private let collected = Mutex<[String]>([])

    public init() {}

    /// A logger (level `.trace`: everything) whose lines land here.
    public var logger: Logger {
        Logger(sink: LogSink(write: { [self] line in collected.withLock { $0.append(line) } }), level: .trace)
    }

    /// Every line so far.
    public var lines: [String] { collected.withLock { $0 } }
}
