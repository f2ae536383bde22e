import HTTPServing
import Wire

/// The idempotent routes (scans, picks, quantities, shorts, shipments): each checked, then committed
/// with its stored answer on a worker or, on SQLite, by the store's committing thread.
extension ScanPickAPI {
    /// The idempotent mutation a request asks for, checked and ready to commit, or nil when the route
    /// is not one (orders, batches, reads).
    func idempotentWrite(_ route: Route, _ request: HTTPRequest, org: String) throws -> IdempotentWrite? {
        switch route {
        case .submitScan:
            return try IdempotentWrite(
                request, org: org, horizon: horizon, route: "submit-scan", as: SubmitScanRequest.self
            ) {
                store, body, key in PickTaskResponse(pickTask: try store.submitScan(body, key: key))
            }
        case .pick:
            return try IdempotentWrite(request, org: org, horizon: horizon, route: "pick", as: PickRequest.self) {
                store, body, key in PickTaskResponse(pickTask: try store.pick(body, key: key))
            }
        case .setQty:
            return try IdempotentWrite(request, org: org, horizon: horizon, route: "set-qty", as: SetQtyRequest.self) {
                store, body, key in PickTaskResponse(pickTask: try store.setQty(body, key: key))
            }
        case .short:
            return try IdempotentWrite(request, org: org, horizon: horizon, route: "short", as: ShortPickRequest.self) {
                store, body, key in PickTaskResponse(pickTask: try store.short(body, key: key))
            }
        case .createShipment:
            return try IdempotentWrite(
                request, org: org, horizon: horizon, route: "shipments", as: CreateShipmentRequest.self, status: 201
            ) { store, body, _ in try store.createShipment(body) }
        case .voidShipment(let id):
            try Self.requirePathIdentifier(id)
            return try IdempotentWrite(
                request, org: org, horizon: horizon, route: "void:\(id)", as: VoidShipmentRequest.self
            ) {
                store, _, _ in try store.voidShipment(id)
            }
        case .health, .ready, .upsertOrders, .createBatch, .listBatches, .getBatch, .closeBatch, .heartbeat, .stations,
            .removeStation, .metrics, .fleetPage, .fleetSignIn, .fleetSignOut, .clearHelp:
            return nil
        }
    }

    /// Runs an idempotent write and waits for its commit (a worker thread).
    func commitNow(_ write: IdempotentWrite, _ request: HTTPRequest) throws -> HTTPResponse {
        guard inFlight.claim(org: write.org, key: write.key) else { throw APIError.inProgress }
        defer { inFlight.release(org: write.org, key: write.key) }
        let dialect = store.dialect
        return try self.write(request.path) { db in try write.runOnce(db, dialect) }
    }

    /// Queues an idempotent write for the store's committing thread and returns at once; `respond`
    /// gets the response once it is committed or refused (counted in the metrics), and what to run
    /// once it has been sent: the log line, which so costs the committing thread nothing.
    func commitLater(
        _ write: IdempotentWrite, _ request: HTTPRequest, route: Route, since start: ContinuousClock.Instant,
        respond: @escaping @Sendable (HTTPResponse, _ whenSent: @escaping @Sendable () -> Void) -> Void
    ) {
        guard inFlight.claim(org: write.org, key: write.key) else {
            let response = APIError.inProgress.response
            respond(response, account(request, response, organisation: write.org, route: route, since: start))
            return
        }
        let dialect = store.dialect
        store.writeLater(.quick, timed(request.path) { db in try write.runOnce(db, dialect) }) { result in
            self.inFlight.release(org: write.org, key: write.key)
            let response: HTTPResponse
            switch result {
            case .success(let answer):
                response = answer
                self.storageWorks()
            case .failure(let error): response = self.response(for: error, request)
            }
            respond(response, self.account(request, response, organisation: write.org, route: route, since: start))
        }
    }
}
