import ConfigFile
import Foundation
import Lifecycle
import Queue
import Synchronization

/// One pick station, built from its configuration in one place: the configuration in force (a
/// corrected one can be applied while it runs, ``apply(_:)``), its database (the action ``queue``
/// and the pick-list ``cache`` in one SQLite file) and its link to the server (the ``transport`` and
/// the ``drainer``). What a station does with them is in extensions named for it: ``taps``,
/// ``refreshPickList()``, ``syncService(attention:log:onPass:)``; ``StationRuntime`` runs it.
///
///     let station = try PickStation(configuration: config, client: ScanPickHTTPClient(…))
///     let result = try station.taps.pick(taskId, qty: 2)
public struct PickStation: Sendable {
    private let live: LiveConfiguration
    public let queue: ActionQueue
    /// The pick list of the open batch, in the same database as the queue.
    public let cache: PickListCache
    /// The ScanPick API: the actions the drainer delivers, batches, heartbeats, probes.
    public let transport: any ScanPickAPIClient
    public let drainer: Drainer
    /// The picker's call for the shift lead, sent with the heartbeats.
    public let help = HelpCall()

    /// `client` speaks to the server: `ScanPickHTTPClient` in the product (the command line builds
    /// it from the config's `server` and tokens), an in-memory one in a test.
    public init(configuration: StationConfiguration, client: any ScanPickAPIClient) throws {
        live = LiveConfiguration(configuration)
        if let problem = DatabaseFolder.accessProblem(forDatabase: configuration.databasePath) {
            throw StationOpenError(description: problem)
        }
        queue = try ActionQueue(path: configuration.databasePath, extraMigrations: PickListCache.migrations)
        cache = PickListCache(queue: queue)
        transport = client
        drainer = Drainer(
            queue: queue, transport: transport,
            backoff: BackoffPolicy(initial: configuration.queue.backoffInitial, cap: configuration.queue.backoffCap),
            secondOpinion: Self.doubtingNotFound(cache: cache, transport: transport))
    }

    /// A server pointed at a new, empty database answers `not_found` for every task: the station
    /// must not dead-letter its whole backlog on that. A `not_found` for a task the cache holds
    /// (the server gave this station its batch) is checked by asking for the batch: if the server
    /// does not know the batch either, the queue pauses with attention instead; if it knows the
    /// batch, the refusal of the task stands. A check that cannot reach the server leaves the
    /// action to be tried again.
    static func doubtingNotFound(cache: PickListCache, transport: any ScanPickAPIClient) -> Drainer.SecondOpinion {
        { action, outcome in
            guard case .refused(404, let reason) = outcome, reason.hasPrefix("not_found:") else { return outcome }
            let (taskId, org) = (action.pickTaskId, action.org)
            guard let batchId = try await BlockingExecutor.shared.run({ try cache.batchId(ofTask: taskId, org: org) })
            else { return outcome }
            do {
                _ = try await transport.fetchBatch(batchId, org: action.org)
                return outcome  // the batch is there: the server really has no such task
            } catch FetchError.refused(404, _) {
                return .paused(
                    Attention(
                        code: "server_lost_batch",
                        message:
                            "the server does not know batch \(batchId) of \(action.org), which it gave this station (it answered not found for #\(action.id) \(action.label)) — was its database replaced? Nothing is sent or set aside meanwhile: point the station at the right server or restore its database; if the batch is really gone, scanpick queue park ID sets each action aside as a dead letter"
                    ), status: 404)
            } catch {
                return .transient(
                    status: nil,
                    reason:
                        "the server answered not found for it, and could not be asked about batch \(batchId): \(error)",
                    retryAfter: nil)
            }
        }
    }

    /// The configuration in force (it changes when a corrected one is applied).
    public var configuration: StationConfiguration { live.current }

    /// Takes a re-read configuration by ``StationConfiguration/reloadTable``: its live keys apply
    /// at once (the server and tokens reach the client for the next request), and every restart key
    /// keeps its running value. Returns the restart keys that changed.
    @discardableResult
    public func apply(_ new: StationConfiguration) -> [String] {
        let (merged, restart) = StationConfiguration.reloaded(new, over: live.current)
        live.replace(merged)
        transport.update(server: merged.server, tokens: merged.tokens)
        return restart
    }
}

/// The configuration in force, shared by every copy of a ``PickStation``.
private final class LiveConfiguration: Sendable {
    private let value: Mutex<StationConfiguration>
    init(_ configuration: StationConfiguration) { value = Mutex(configuration) }
    var current: StationConfiguration { value.withLock { $0 } }
    func replace(_ configuration: StationConfiguration) { value.withLock { $0 = configuration } }
}

/// A station database that cannot be opened as configured, in the operator's words.
public struct StationOpenError: Error, CustomStringConvertible {
    public let description: String
}
