/// A long-running part of a process (an HTTP listener, the sync loop, a scanner's reader), run by a
/// ``ServiceGroup`` as swift-service-lifecycle runs its services: ``run()`` does the work until its
/// task is cancelled, which means stop, and returns once everything it started has ended.
///
///     struct Pruning: Service {
///         func run() async throws { while !Task.isCancelled { try await prune(); await wait(3600) } }
///     }
public protocol Service: Sendable {
    /// The service's name in the log (`stopping`, a failure) and in tests.
    var name: String { get }

    /// Takes what the service needs before anything after it in the group starts (a listening
    /// socket, an open device), so a failure stops the start-up in order; the default does nothing.
    /// The group calls ``run()`` next, and cancels it even if a later service fails to start.
    func start() async throws

    /// Runs until the task is cancelled (stop) or the work is done; throws what stopped it otherwise.
    func run() async throws
}

extension Service {
    public var name: String { String(describing: Self.self) }
    public func start() async throws {}
}
