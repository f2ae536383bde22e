import Foundation
import HTTPServing
import Wire

/// The picker's taps (`POST /api/taps`) and codes typed into the page (`POST /api/scans`).
extension StationPage {
    /// `POST /api/taps`'s answer once the tap is durable.
    struct TapAnswer: Encodable {
        var actionId: Int
        var pickTask: PickTask
    }

    func tap(_ request: HTTPRequest) throws -> TapAnswer {
        let body = try JSONDecoder().decode(TapBody.self, from: Data(request.body))
        // The server's rule for the id, before it is looked up or echoed in a refusal.
        try FieldRules.text(body.pickTaskId, field: "pickTaskId")
        let result: StationTaps.Result
        switch body.kind {
        case "pick": result = try station.pageTaps.pick(body.pickTaskId, qty: try body.qty.value(default: 1))
        case "setQty":
            guard body.from != .absent, body.to != .absent else {
                throw HTTPError(status: 400, code: "bad_request", message: "a setQty tap needs from and to")
            }
            result = try station.pageTaps.setQty(
                body.pickTaskId, from: try body.from.value(default: 0), to: try body.to.value(default: 0))
        case "short":
            guard body.qty != .absent, let text = body.reason else {
                throw HTTPError(status: 400, code: "bad_request", message: "a short tap needs qty and reason")
            }
            try FieldRules.shortReason(text)
            let reason = ShortReason(rawValue: text) ?? .other  // checked just above
            result = try station.pageTaps.short(body.pickTaskId, qty: try body.qty.value(default: 1), reason: reason)
        default:
            throw HTTPError(status: 400, code: "bad_request", message: "kind must be pick, setQty or short")
        }
        sync.poke()
        let answer = TapAnswer(actionId: result.actionId, pickTask: result.task)
        if let json = try? Self.encode(answer) { events.publish("tap", json) }
        events.poke()
        return answer
    }

    /// The most characters a code typed into the page may have (the API's barcodes have far fewer:
    /// the scan path refuses those, longer text is not even logged).
    static let maxTypedCode = 256

    /// `POST /api/scans` with `{"code"}`: the code as a scan (``takeScans(_:)``).
    func scan(_ request: HTTPRequest) throws -> ScanAnswer {
        struct Body: Decodable { var code: String }
        let body = try JSONDecoder().decode(Body.self, from: Data(request.body))
        guard (1...Self.maxTypedCode).contains(body.code.utf8.count) else {
            throw HTTPError(status: 400, code: "invalid_field", message: "code is 1–\(Self.maxTypedCode) characters")
        }
        guard let handler = scanHandler.withLock({ $0 }) else {
            throw HTTPError(status: 503, code: "starting", message: "the station is not taking scans yet")
        }
        guard let answer = handler(body.code) else {
            throw HTTPError(
                status: 503, code: "storage", message: "the scan could not be recorded (the station's database)")
        }
        return answer
    }
}

/// `POST /api/taps`'s body. Quantities are read as any JSON number, so one too big for an `Int`
/// (or with a fraction) is refused as an invalid quantity (422), never as a crash or a parse error.
struct TapBody: Decodable {
    var pickTaskId: String
    var kind: String
    var qty: Quantity
    var from: Quantity
    var to: Quantity
    /// A short tap's reason (a ``ShortReason`` raw value).
    var reason: String?

    /// A quantity as sent: absent, a whole number, or a number no tap can carry.
    enum Quantity: Equatable {
        case absent
        case whole(Int)
        case unusable(String)

        func value(default fallback: Int) throws(TapRefusal) -> Int {
            switch self {
            case .absent: fallback
            case .whole(let value): value
            case .unusable(let text): throw .invalidQuantity("\(text) is not a quantity a tap can carry")
            }
        }
    }

    private enum Keys: String, CodingKey { case pickTaskId, kind, qty, from, to, reason }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        pickTaskId = try container.decode(String.self, forKey: .pickTaskId)
        kind = try container.decode(String.self, forKey: .kind)
        func quantity(_ key: Keys) throws -> Quantity {
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return .absent }
            if let whole = try? container.decode(Int.self, forKey: key) { return .whole(whole) }
            let number = try container.decode(Double.self, forKey: key)  // not a number: a 400
            return .unusable(String(describing: number))
        }
        qty = try quantity(.qty)
        from = try quantity(.from)
        to = try quantity(.to)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
    }
}
