import Digest
import Foundation
import HTTPServing
import Storage
import Timestamps
import Wire

/// A request body that carries its idempotency key (it may also come as a header).
protocol IdempotentRequest: Codable, Sendable, ValidatedRequest {
    var idempotencyKey: String? { get set }
}

extension SubmitScanRequest: IdempotentRequest {}
extension PickRequest: IdempotentRequest {}
extension SetQtyRequest: IdempotentRequest {}
extension ShortPickRequest: IdempotentRequest {}
extension CreateShipmentRequest: IdempotentRequest {}
extension VoidShipmentRequest: IdempotentRequest {}

/// One idempotent mutation, checked and ready to commit: its organisation and key, a fingerprint of
/// the request (route and body without the key), the status of success, and the change itself.
/// Made on any thread; ``runOnce(_:_:)`` runs inside the write transaction.
struct IdempotentWrite: Sendable {
    let org: String
    let key: String
    let fingerprint: String
    let status: Int
    /// The station that sent it (`X-ScanPick-Station`, checked with the request's head), recorded
    /// with the key and the event.
    let station: String?
    private let operation: @Sendable (PickingStore) throws -> [UInt8]

    /// Decodes and checks the body of `request` (400/422 for a bad one) and resolves its key.
    init<Body: IdempotentRequest, Result: Encodable & SendableMetatype>(
        _ request: HTTPRequest, org: String, horizon: IdempotencyHorizon, route: String, as type: Body.Type,
        status: Int = 200,
        _ change: @escaping @Sendable (PickingStore, Body, String) throws -> Result
    ) throws(APIError) {
        let body = try JSONCoding.decodeValid(type, from: request.body.isEmpty ? Array("{}".utf8) : request.body)
        let key = try IdempotencyKey.resolve(body: body.idempotencyKey, header: request.header("idempotency-key"))
        let clock = request.header(IdempotencyHorizon.clockHeader)
        let stationClock = clock.flatMap(Timestamp.date)
        if clock != nil, stationClock == nil {
            throw APIError.badRequest(
                "the X-ScanPick-Clock header must be an ISO 8601 time, like 2026-11-30T10:00:00.000Z")
        }
        var unkeyed = body
        unkeyed.idempotencyKey = nil
        self.org = org
        self.key = key
        self.status = status
        station = request.header(StationIdentity.header)
        fingerprint = SHA256.hex(of: Array((route + "\n").utf8) + JSONCoding.encode(unkeyed))
        operation = { store in
            // The key is not known here: is the station's clock right, and the action too old to tell?
            try horizon.admit(body, stationClock: stationClock)
            return JSONCoding.encode(try change(store, body, key))
        }
    }

    /// The idempotency protocol inside one transaction: claim the key across processes
    /// (PostgreSQL), replay a stored answer for the same request or refuse one for a different
    /// request, or run the change and store its answer with it. Both answers echo the key in an
    /// `Idempotency-Key` header: a station counts an action as delivered only on an answer that
    /// carries its key, which nothing but this API gives (a captive portal's `200 <html>` does not). A refusal (a ``PickingError``) is
    /// thrown, so it changes nothing and is not stored.
    func runOnce(_ db: any SQLConnection, _ dialect: SQLDialect) throws -> HTTPResponse {
        let records = IdempotencyRecords(db: db, dialect: dialect, org: org, station: station)
        switch try records.claim(key) {
        case .claimedElsewhere:
            throw PickingError.keyInUse
        case .stored(let hash, let status, let body):
            guard hash == fingerprint else { throw PickingError.keyReused }
            return .json(status, body, headers: [("Idempotency-Key", key), ("Idempotent-Replayed", "true")])
        case .unknown:
            let now = Date()
            let answer = try operation(PickingStore(db: db, dialect: dialect, org: org, now: now, station: station))
            try records.store(key, requestHash: fingerprint, status: status, body: answer, at: now)
            return .json(status, answer, headers: [("Idempotency-Key", key)])
        }
    }
}
