/// One service run on its own, outside a ``ServiceGroup`` (a command that needs one part, a test):
/// started as a group would start it, stopped as a group would stop it (its task cancelled, then
/// awaited).
///
///     let sync = try await ServiceRun.start(syncService)
///     …
///     try await sync.stop()
public final class ServiceRun: Sendable {
    private let task: Task<Void, any Error>

    private init(_ task: Task<Void, any Error>) { self.task = task }

    /// Calls the service's ``Service/start()``, then runs it in a task of its own.
    public static func start(_ service: any Service) async throws -> ServiceRun {
        try await service.start()
        return ServiceRun(Task { try await service.run() })
    }

    /// Cancels the service's run and waits for it to end; throws what it threw, but for a cancellation.
    public func stop() async throws {
        task.cancel()
        do {
            try await task.value
        } catch is CancellationError {}
    }
}
