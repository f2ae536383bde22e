import JSONText

/// `POST /api/picking/submit-scan`: one scanned unit (or a case's units, for a case code).
public struct SubmitScanRequest: Codable, Sendable, Equatable {
    public var pickTaskId: String
    public var barcode: String
    /// When the frame was captured (ISO 8601).
    public var scannedAt: String
    /// Made when the scan happened; may instead come as the `Idempotency-Key` header.
    public var idempotencyKey: String?
    public var workerId: String

    public init(pickTaskId: String, barcode: String, scannedAt: String, idempotencyKey: String?, workerId: String) {
        self.pickTaskId = pickTaskId
        self.barcode = barcode
        self.scannedAt = scannedAt
        self.idempotencyKey = idempotencyKey
        self.workerId = workerId
    }
}

/// `POST /api/picking/pick`: a tap that picks `qty` more units ("pick A1 ×2").
public struct PickRequest: Codable, Sendable, Equatable {
    public var pickTaskId: String
    public var qty: Int
    public var idempotencyKey: String?
    public var workerId: String
    /// When the tap happened (ISO 8601).
    public var at: String

    public init(pickTaskId: String, qty: Int, idempotencyKey: String?, workerId: String, at: String) {
        self.pickTaskId = pickTaskId
        self.qty = qty
        self.idempotencyKey = idempotencyKey
        self.workerId = workerId
        self.at = at
    }
}

/// `POST /api/picking/set-qty`: a tap that sets the picked count ("qty C2 1→3"). `from` is what the
/// picker saw; the server sets `to` (the picker's count is absolute) and keeps `from` for audit.
public struct SetQtyRequest: Codable, Sendable, Equatable {
    public var pickTaskId: String
    public var from: Int
    public var to: Int
    public var idempotencyKey: String?
    public var workerId: String
    public var at: String

    public init(pickTaskId: String, from: Int, to: Int, idempotencyKey: String?, workerId: String, at: String) {
        self.pickTaskId = pickTaskId
        self.from = from
        self.to = to
        self.idempotencyKey = idempotencyKey
        self.workerId = workerId
        self.at = at
    }
}

/// `POST /api/picking/short`: units of a task that will not be picked ("2 not found at A1"), with
/// why (a ``ShortReason`` raw value: `not_found`, `damaged`, `other`).
public struct ShortPickRequest: Codable, Sendable, Equatable {
    public var pickTaskId: String
    public var qty: Int
    public var reason: String
    public var idempotencyKey: String?
    public var workerId: String
    /// When the picker reported it (ISO 8601).
    public var at: String

    public init(pickTaskId: String, qty: Int, reason: String, idempotencyKey: String?, workerId: String, at: String) {
        self.pickTaskId = pickTaskId
        self.qty = qty
        self.reason = reason
        self.idempotencyKey = idempotencyKey
        self.workerId = workerId
        self.at = at
    }
}

// The server fingerprints every scan, pick and quantity change (its body without the key, as
// Foundation's encoder with sorted keys writes it) to tell a replay from a reused key; these write
// the same bytes directly, keys in sorted order.

extension SubmitScanRequest: JSONBytesEncodable {
    public var jsonBytes: [UInt8] {
        var object = JSONObjectWriter()
        object.add("barcode", string: barcode)
        object.add("idempotencyKey", string: idempotencyKey)
        object.add("pickTaskId", string: pickTaskId)
        object.add("scannedAt", string: scannedAt)
        object.add("workerId", string: workerId)
        return object.finishedBytes()
    }
}

extension PickRequest: JSONBytesEncodable {
    public var jsonBytes: [UInt8] {
        var object = JSONObjectWriter()
        object.add("at", string: at)
        object.add("idempotencyKey", string: idempotencyKey)
        object.add("pickTaskId", string: pickTaskId)
        object.add("qty", number: qty)
        object.add("workerId", string: workerId)
        return object.finishedBytes()
    }
}

extension SetQtyRequest: JSONBytesEncodable {
    public var jsonBytes: [UInt8] {
        var object = JSONObjectWriter()
        object.add("at", string: at)
        object.add("from", number: from)
        object.add("idempotencyKey", string: idempotencyKey)
        object.add("pickTaskId", string: pickTaskId)
        object.add("to", number: to)
        object.add("workerId", string: workerId)
        return object.finishedBytes()
    }
}

extension ShortPickRequest: JSONBytesEncodable {
    public var jsonBytes: [UInt8] {
        var object = JSONObjectWriter()
        object.add("at", string: at)
        object.add("idempotencyKey", string: idempotencyKey)
        object.add("pickTaskId", string: pickTaskId)
        object.add("qty", number: qty)
        object.add("reason", string: reason)
        object.add("workerId", string: workerId)
        return object.finishedBytes()
    }
}
