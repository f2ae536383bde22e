import HTTPServing
import Logging
import Storage

/// What `GET /health/ready` keeps between calls: whether the server is stopping, and whether it has
/// logged that the database is newer than it (once, not at every check of a load balancer).
struct Readiness: Sendable {
    var stopping = false
    var saidSchemaNewer = false
}

extension ScanPickAPI {
    /// `GET /health/ready`, which a load balancer checks before sending this server requests: 200
    /// when the database answers a query, has applied no migration this binary lacks, and, after a
    /// write failed for want of storage, takes a write again; 503 when the server is stopping
    /// (`server_stopping`, its drain), when a newer server migrated the database (`schema_newer`:
    /// during a rolling upgrade the old servers take themselves out) or when the database does not
    /// answer (`database_unavailable`, `storage_full`, `storage_failed`).
    func ready() throws(APIError) -> HTTPResponse {
        if readiness.withLock({ $0.stopping }) { throw APIError.serverStopping }
        let applied: [String]
        do {
            if storageTrouble.withLock({ $0 }) != nil {
                try store.checkWritable()
                storageWorks()
            }
            applied = try store.checkReady()
        } catch let failure as PickingError {
            logInternalError(HTTPRequest(method: "GET", path: "/health/ready"), failure)
            metrics.countDatabaseError()
            noteStorage(failure)
            switch failure {
            case .storageFull, .storageFailed: throw APIError(failure)
            default: throw APIError.databaseUnavailable
            }
        } catch {
            logInternalError(HTTPRequest(method: "GET", path: "/health/ready"), error)
            metrics.countDatabaseError()
            throw APIError.databaseUnavailable
        }
        let known = Set((store.dialect == .postgres ? ServerSchema.postgres : ServerSchema.sqlite).map(\.identifier))
        let unknown = applied.filter { !known.contains($0) }.sorted()
        guard unknown.isEmpty else {
            let firstTime = readiness.withLock { state in
                let first = !state.saidSchemaNewer
                state.saidSchemaNewer = true
                return first
            }
            if firstTime {
                logger.warning(
                    "schema_newer",
                    [
                        "migrations": .string(unknown.joined(separator: ",")),
                        "message":
                            "a newer scanpick migrated the database: /health/ready answers 503 until this server is upgraded",
                    ])
            }
            throw APIError.schemaNewer(unknown)
        }
        return .json(200, Array(#"{"status":"ready"}"#.utf8))
    }

    /// From now on `GET /health/ready` answers 503 `server_stopping` while everything else is served
    /// as before: the server is about to stop (``ReadinessDrain``).
    public func beginStopping() {
        readiness.withLock { $0.stopping = true }
    }
}
