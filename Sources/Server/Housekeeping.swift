import Lifecycle
import Logging

/// The server's periodic work as a service: stored answers past their retention and stations
/// silent too long are pruned when it starts (a failure then stops the start-up) and hourly
/// (``ScanPickAPI/prune()``), and complete batches are closed `batches.autoCloseMinutes` after
/// their last change (``ScanPickAPI/closeIdleBatches(now:)``, every
/// ``ScanPickAPI/batchAutoCloseInterval``). A failure of a later turn is logged (`prune_failed`,
/// `auto_close_failed`) and tried again at the next. The work runs on the blocking executor.
///
///     let group = ServiceGroup([Housekeeping(api: api, logger: logger), listener], logger: logger)
struct Housekeeping: Service {
    let name = "housekeeping"
    let api: ScanPickAPI
    let logger: Logger

    func start() async throws {
        try await BlockingExecutor.shared.run { [api] in try api.prune() }
    }

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await every(.seconds(3600), failure: "prune_failed") { try api.prune() } }
            group.addTask {
                await every(api.batchAutoCloseInterval, failure: "auto_close_failed") { _ = try api.closeIdleBatches() }
            }
        }
    }

    /// Runs `work` every `interval` until cancelled, the first turn one interval from now.
    private func every(
        _ interval: Duration, failure: String, _ work: @escaping @Sendable () throws -> Void
    ) async {
        while (try? await Task.sleep(for: interval)) != nil {
            do {
                try await BlockingExecutor.shared.run(work)
            } catch {
                logger.warning(failure, ["error": .error(error)])
            }
        }
    }
}
