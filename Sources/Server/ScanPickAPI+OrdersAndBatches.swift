import Foundation
import HTTPServing
import Timestamps
import Wire

/// The routes that are not idempotent writes: orders, batches, heartbeats and the station list.
extension ScanPickAPI {
    /// Orders, batches and reads (the idempotent writes go through ``idempotentWrite(_:_:org:)``).
    func answer(_ route: Route, _ request: HTTPRequest, org: String) throws -> HTTPResponse {
        switch route {
        case .upsertOrders:
            let body = try JSONCoding.decodeValid(UpsertOrdersRequest.self, from: request.body)
            let feed = OrderFeed(body.orders)
            let count = try transaction(org, request.path, .bulk) { store in try store.upsert(feed) }
            return .json(200, JSONCoding.encode(UpsertOrdersResponse(upserted: count)))
        case .createBatch:
            let body = try JSONCoding.decodeValid(CreateBatchRequest.self, from: request.body)
            // Choose the lines outside the writer, take them inside it (choosing again if a batch made
            // meanwhile took them all), and read the batch back outside.
            for _ in 0..<3 {
                guard let candidates = try read(org, { store in try store.batchCandidates(body.filters) }) else {
                    break
                }
                if let id = try transaction(
                    org, request.path, .bulk, { store in try store.createBatch(of: candidates) })
                {
                    return .json(201, JSONCoding.encode(try read(org) { store in try store.batch(id) }))
                }
            }
            throw PickingError.nothingToBatch
        case .getBatch(let id):
            try Self.requirePathIdentifier(id)
            return .json(200, JSONCoding.encode(try read(org) { store in try store.batch(id) }))
        case .heartbeat:
            return try recordHeartbeat(request, org: org)
        case .stations:
            let now = Date()
            let dialect = store.dialect
            let entries = try store.read { db in try StationRegistry(db: db, dialect: dialect, org: org).stations() }
            let answer = FleetStations(
                org: org, serverTime: Timestamp.iso8601(now),
                stations: entries.map {
                    fleetStatus.view($0, now: now, tokenRefusedAt: refusedTokens.lastRefusal(of: $0.heartbeat.station))
                })
            return .json(200, JSONCoding.encode(answer))
        case .removeStation(let name):
            guard StationIdentity.isValid(name) else { throw APIError.invalidStation }
            let dialect = store.dialect
            let removed = try write(request.path) { db in
                try StationRegistry(db: db, dialect: dialect, org: org).remove(name)
            }
            guard removed else {
                throw APIError(status: 404, code: "not_found", message: "station \(name) has not reported here")
            }
            return .json(200, Array(#"{"removed":true}"#.utf8))
        case .clearHelp(let station):
            return try clearHelp(request, station: station, org: org)
        case .listBatches:
            return .json(200, JSONCoding.encode(try read(org) { store in try store.openBatches() }))
        case .closeBatch(let id):
            try Self.requirePathIdentifier(id)
            // The body is an object (or none); anything else is a client's mistake, said, not ignored.
            // Closing is idempotent by nature (a closed batch stays as it is): a key, when sent, is
            // only echoed, so a station can queue its close like any action.
            let body =
                request.body.isEmpty ? CloseBatchBody() : try JSONCoding.decode(CloseBatchBody.self, from: request.body)
            let key: String? =
                body.idempotencyKey != nil || request.header("idempotency-key") != nil
                ? try IdempotencyKey.resolve(body: body.idempotencyKey, header: request.header("idempotency-key"))
                : nil
            let batch = try transaction(org, request.path) { store in try store.closeBatch(id) }
            return .json(200, JSONCoding.encode(batch), headers: key.map { [("Idempotency-Key", $0)] } ?? [])
        case .health, .ready, .submitScan, .pick, .setQty, .short, .createShipment, .voidShipment, .metrics,
            .fleetPage, .fleetSignIn, .fleetSignOut:
            throw APIError.internalError  // answered in handle(_:)
        }
    }

    /// An id taken from the path (a batch, a shipment) keeps the same rules as one in a body.
    static func requirePathIdentifier(_ id: String) throws(APIError) {
        do {
            try FieldRules.text(id, field: "id (in the path)")
        } catch {
            throw APIError.invalid(error)
        }
    }
}
