import Foundation
import Queue
import Wire

extension StationQueue {
    /// Refreshes the open batch from the server: the server's view replaces the cached rows, except
    /// rows with an action not yet confirmed sent, which keep their local counts until it is (the
    /// seed's audit bug: a refresh must never erase taps it has not seen). Returns false when no
    /// batch is open; throws when the server cannot be reached.
    @discardableResult
    public func refreshPickList() async throws -> Bool {
        guard let open = try cache.openBatch() else { return false }
        try await fetchIntoCache(open.batchId, org: open.org)
        return true
    }

    /// Fetches batch `id` of `org` from the server and stores it as the open batch (rows with unsent
    /// actions keep their local counts): the one way a batch gets from the server into the cache.
    @discardableResult
    func fetchIntoCache(_ id: String, org: String) async throws -> Batch {
        let asked = Date()
        let batch = try await transport.fetchBatch(id, org: org)
        try cache.store(batch, org: org, fetchedAt: asked)
        return batch
    }
}
