import Foundation
import Queue
import Wire

/// How a batch came to be open on the station.
public enum BatchOpening: Sendable {
    /// Fetched from the server into the pick-list cache.
    case fetched(Batch)
    /// The server could not be reached: reopened from the station's cache, as last fetched.
    case reopenedFromCache
}

extension PickStation {
    /// Opens batch `id` of `org` on the station: fetched from the server into the pick-list cache
    /// (rows with unsent actions keep their local counts), or, when the server cannot be reached,
    /// reopened from the cache if the station has opened it before.
    ///
    ///     if case .fetched(let batch) = try await station.openBatch("batch-7", org: "acme") { … }
    public func openBatch(_ id: String, org: String) async throws -> BatchOpening {
        _ = try configuration.organisation(org)
        do {
            return .fetched(try await fetchIntoCache(id, org: org, opening: true))
        } catch let error as FetchError {
            guard case .unreachable = error else { throw error }
            guard try await blocking({ [cache] in try cache.reopen(id, org: org) }) else {
                throw BatchOpeningError.neverOpened(id, error)
            }
            return .reopenedFromCache
        }
    }

    /// Creates a batch of `org` on the server from `filters` (the server alone can resolve them
    /// against its orders) and opens it here.
    public func createBatch(_ filters: BatchFilters, org: String) async throws -> Batch {
        _ = try configuration.organisation(org)
        let asked = Date()
        let batch: Batch
        do {
            batch = try await transport.createBatch(filters, org: org)
        } catch {
            guard case .unreachable = error else { throw error }
            throw BatchOpeningError.creatingNeedsServer(error)
        }
        try await blocking { [cache] in try cache.store(batch, org: org, fetchedAt: asked) }
        return batch
    }
}

extension PickStation {
    /// Closes batch `id` of `org` (`scanpick batch close`). A batch this station has opened is
    /// finished as the page's "Finish batch" does it: marked closed here at once and its close
    /// queued behind the actions before it (``StationTaps/closeBatch(_:org:now:)``); the queue is then
    /// sent now, and the batch read back once its close is sent. It stays queued when the server
    /// cannot be reached or another process (the running station) is sending the queue. Any other
    /// batch (a supervisor's, opened elsewhere) is closed on the server at once: this station has no
    /// taps of it to send first.
    public func closeBatch(_ id: String, org: String) async throws -> BatchClosing {
        _ = try configuration.organisation(org)
        let queue = self.queue
        let cached = try await blocking {
            try queue.database.read { db in try PickListCache.isCached(id, org: org, in: db) }
        }
        guard cached else { return .closed(try await transport.closeBatch(id, org: org)) }
        let close = try await blocking { [self] in try taps.closeBatch(id, org: org) ?? queuedClose(of: id, org: org) }
        if let close {
            _ = try await drainer.drainPass(honouringBackoff: false)
            let (action, ahead) = try await blocking {
                (try queue.action(close), try queue.actions(in: [.pending, .inFlight]).filter { $0.id < close }.count)
            }
            guard let action, action.state == .sent else {
                if let action, action.state == .dead {
                    throw BatchOpeningError.closeRefused(id, action.lastError ?? "refused")
                }
                return .queued(actionId: close, ahead: ahead)
            }
        }
        return .closed(try await transport.fetchBatch(id, org: org))
    }

    /// The close of batch `id` still waiting in the queue (the batch was finished here before), if any.
    private func queuedClose(of id: String, org: String) throws -> Int? {
        try queue.actions(in: [.pending, .inFlight]).last {
            $0.kind == .closeBatch && $0.org == org && $0.pickTaskId == id
        }?
        .id
    }

    /// The open batches of `org` the picker can choose from: the server's when it answers, else the
    /// ones cached on the station (``BatchChoices/fromCache``).
    public func batchChoices(org: String) async throws -> BatchChoices {
        _ = try configuration.organisation(org)
        do {
            let list = try await transport.openBatches(org: org)
            return BatchChoices(org: org, fromCache: false, batches: list.batches)
        } catch {
            guard case .unreachable = error else { throw error }
            let cached = try await blocking { [cache] in try cache.cachedBatches(org: org) }.map {
                BatchSummary(
                    id: $0.batchId, status: "open", createdAt: "", closedAt: nil, tasks: $0.tasks, complete: $0.complete
                )
            }
            return BatchChoices(org: org, fromCache: true, batches: cached)
        }
    }
}

/// What became of `scanpick batch close`.
public enum BatchClosing: Sendable {
    /// Closed on the server: the batch as it now stands.
    case closed(Batch)
    /// Queued (action `actionId`), behind `ahead` actions not yet sent: the server gets it when it
    /// can be reached, or from the process sending the queue now.
    case queued(actionId: Int, ahead: Int)
}

/// The batches the page offers to open.
public struct BatchChoices: Sendable, Equatable, Encodable {
    public var org: String
    /// True when the server could not be reached: these are the batches the station has cached.
    public var fromCache: Bool
    public var batches: [BatchSummary]
}

/// Why a batch could not be opened without the server.
public enum BatchOpeningError: Error, Sendable, CustomStringConvertible {
    /// The server is unreachable and the station never opened this batch (the cache has to be filled once).
    case neverOpened(String, FetchError)
    /// The server is unreachable, and only it can create a batch.
    case creatingNeedsServer(FetchError)
    /// The server refused a queued close (now a dead letter), with its reason.
    case closeRefused(String, String)

    public var description: String {
        switch self {
        case .neverOpened(let id, let error):
            "\(error). Batch \(id) was never opened on this station, and opening it the first time needs the server."
        case .creatingNeedsServer(let error):
            "\(error). Creating a batch needs the server: it resolves the filters against the orders table."
        case .closeRefused(let id, let reason):
            "the server refused to close batch \(id) (\(reason.prefix(300))); its close is a dead letter for support (scanpick queue)"
        }
    }
}

extension BatchOpening {
    /// Why a batch could not be opened, in a picker's words (the detail is in the log and the
    /// page's Diagnostics).
    public static func pickerReason(_ error: any Error) -> String {
        switch error {
        case BatchOpeningError.neverOpened:
            "the server cannot be reached, and this station needs it to open a batch the first time; try again when it is back"
        case BatchOpeningError.creatingNeedsServer, FetchError.unreachable:
            "the server cannot be reached; try again when it is back"
        case FetchError.refused(let status, _) where status == 404:
            "the server does not know that batch; check the label"
        case FetchError.refused(let status, _) where status == 409:
            "that batch is already closed"
        default:
            "ask your lead (support sees why in Diagnostics)"
        }
    }
}
