import ConfigFile
import Foundation
import HTTPServing
import JSONText
import Wire

/// A refusal the API answers with: HTTP status, a stable code and a sentence for people (the HTTP
/// layer's one error type). Thrown by handlers; a 4xx rolls back whatever the request had started.
typealias APIError = HTTPError

extension HTTPError {
    static func badRequest(_ message: String) -> APIError {
        APIError(status: 400, code: "bad_request", message: message)
    }
    static let unauthorized = APIError(
        status: 401, code: "unauthorized",
        message: "send 'Authorization: Bearer TOKEN' with a token of your organisation")
    static let inProgress = APIError(PickingError.keyInUse)
    static func unprocessable(_ code: String, _ message: String) -> APIError {
        APIError(status: 422, code: code, message: message)
    }
    /// A field that breaks the contract's ``FieldRules``: 400 `invalid_field` for text, 422
    /// `invalid_quantity` for a quantity out of range, 422 `too_many_items` for a list too long.
    static func invalid(_ error: FieldError) -> APIError {
        switch error.kind {
        case .text: APIError(status: 400, code: "invalid_field", message: error.description)
        case .quantity: APIError(status: 422, code: "invalid_quantity", message: error.description)
        case .listLength: APIError(status: 422, code: "too_many_items", message: error.description)
        }
    }
    static func duplicateHeader(_ name: String) -> APIError {
        APIError(
            status: 400, code: "duplicate_header", message: "the \(name) header was sent more than once; send it once")
    }
    static let internalError = APIError(
        status: 500, code: "internal_error", message: "the server could not complete the request; it is safe to retry")

    /// An `X-ScanPick-Station` (or a station named in a path) that breaks the station name rule.
    static let invalidStation = APIError(
        status: 400, code: "invalid_station", message: "the station name (X-ScanPick-Station) \(StationIdentity.rule)")
    static let heartbeatTooLarge = APIError(
        status: 413, code: "payload_too_large",
        message: "a heartbeat body may be at most \(StationHeartbeat.maxBodyBytes) bytes")
    static let signInTooLarge = APIError(
        status: 413, code: "payload_too_large",
        message: "a fleet sign-in body may be at most \(ScanPickAPI.maxSignInBytes) bytes")
    static func stationMismatch(header: String, body: String) -> APIError {
        .badRequest("the heartbeat is for station \(body) but X-ScanPick-Station says \(header): they must agree")
    }
    static func tooManyStations(_ org: String, limit: Int) -> APIError {
        APIError(
            status: 422, code: "too_many_stations",
            message:
                "organisation \(org) already has \(limit) stations reporting (the server's maxStationsPerOrganisation): remove retired ones (DELETE /api/stations/NAME) or raise the limit"
        )
    }

    static let serverStopping = APIError(
        status: 503, code: "server_stopping",
        message: "this server is stopping: a load balancer sends requests to another; it still answers them meanwhile")
    static func schemaNewer(_ unknown: [String]) -> APIError {
        APIError(
            status: 503, code: "schema_newer",
            message:
                "the database has migrations this server does not know (\(unknown.joined(separator: ", "))): a newer scanpick migrated it; upgrade this server"
        )
    }
    static let databaseUnavailable = APIError(
        status: 503, code: "database_unavailable",
        message: "the database is unavailable for the moment; nothing was changed and it is safe to retry")
}

extension APIError {
    /// The HTTP answer to each of the store's domain errors: its status and stable code (contracts
    /// stations and clients rely on; see docs/api.md), with the domain's sentence. A
    /// database failure is answered without its details, which go to the log.
    init(_ error: PickingError) {
        switch error {
        case .notFound: self.init(status: 404, code: "not_found", message: error.description)
        case .barcodeMismatch: self = .unprocessable("barcode_mismatch", error.description)
        case .overPick: self = .unprocessable("over_pick", error.description)
        case .scanRefused(.lotMismatch, _): self = .unprocessable("lot_mismatch", error.description)
        case .scanRefused(.expired, _): self = .unprocessable("expired", error.description)
        case .scanRefused: self = .unprocessable("malformed_gs1", error.description)
        case .lockedByShipment: self = .unprocessable("locked_by_shipment", error.description)
        case .taskNotInOrder: self = .unprocessable("task_not_in_order", error.description)
        case .notPicked: self = .unprocessable("not_picked", error.description)
        case .emptyShipment: self = .invalid(PickingError.emptyShipmentField)
        case .repeatedShipmentUnit: self = .badRequest(error.description)
        case .nothingToBatch: self = .unprocessable("nothing_to_batch", error.description)
        case .batchClosed: self.init(status: 409, code: "batch_closed", message: error.description)
        case .keyInUse: self.init(status: 409, code: "request_in_progress", message: error.description)
        case .keyReused: self = .unprocessable("idempotency_key_reused", error.description)
        case .tooOldToDeduplicate: self = .unprocessable("too_old_to_deduplicate", error.description)
        case .clockSkew: self = .unprocessable("clock_skew", error.description)
        case .unavailable: self = .databaseUnavailable
        // The engine's words (a file's path, its error) stay in the server's log.
        case .storageFull:
            self.init(
                status: 503, code: "storage_full",
                message:
                    "the server cannot store anything now: its database's disk is full; nothing was changed, and it is safe to retry once space is freed"
            )
        case .storageFailed:
            self.init(
                status: 503, code: "storage_failed",
                message:
                    "the server cannot store anything now: its database's storage failed (an I/O error, or its file was deleted or replaced: the server's log says which); nothing was changed, and it is safe to retry"
            )
        case .storage: self = .internalError
        }
    }
}

/// `POST /api/batches/{id}/close`'s body: a JSON object (`{}`), which may carry the
/// `idempotencyKey` a station queued the close under. Its other fields are not read, as no route
/// reads fields it does not know (a newer client may send more, e.g. the station's `at` and
/// `workerId`). A struct without properties would decode from any JSON at all: this asks for an
/// object.
struct CloseBatchBody: Decodable {
    var idempotencyKey: String?

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        idempotencyKey = try container.decodeIfPresent(String.self, forKey: AnyKey(stringValue: "idempotencyKey"))
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// JSON in and out of the API: strict decoding that turns every problem into a 400 naming the field,
/// and stable encoding (sorted keys) so equal values give equal bytes.
enum JSONCoding {
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(APIError) -> T {
        if let plain = type as? any FlatJSONDecodable.Type, let object = FlatJSONObject(body),
            let value = plain.init(flat: object) as? T
        {
            return value  // what stations send, read without JSONDecoder
        }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw .badRequest("the request body is not valid UTF-8")
        }
        do {
            let value = try JSONDecoder().decode(type, from: Data(body))
            // Parsers differ on which of two values of one key counts (Foundation's takes one, a
            // proxy's may take the other): a key given twice is refused, never settled.
            if let repeated = JSONSyntax.repeatedKey(in: body, knownValid: true) {
                let field = repeated.path.count <= 100 ? repeated.path : repeated.path.prefix(100) + "…"
                throw FieldError(field: field, problem: "is given twice: send each field once")
            }
            return value
        } catch let error as DecodingError {
            throw .badRequest(JSONDecodingProblem.describe(error, body: body))
        } catch let error as FieldError {
            throw .invalid(error)  // a field the body may not hold (a batch's unknown filter)
        } catch {
            throw .badRequest("the request body is not valid JSON")
        }
    }

    /// Decodes a request body and checks its fields against ``FieldRules``.
    static func decodeValid<T: Decodable & ValidatedRequest>(_ type: T.Type, from body: [UInt8]) throws(APIError) -> T {
        let value = try decode(type, from: body)
        do {
            try value.validate()
        } catch {
            throw .invalid(error)
        }
        return value
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        if let direct = value as? any JSONBytesEncodable { return direct.jsonBytes }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? [UInt8](encoder.encode(value))) ?? Array(#"{"error":"internal_error"}"#.utf8)
    }

}
