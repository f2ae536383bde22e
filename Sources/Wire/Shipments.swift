/// `POST /api/shipments`: a label now exists for these units; they are in a box.
public struct CreateShipmentRequest: Codable, Sendable, Equatable {
    public var orderId: String
    public var units: [ShipmentUnit]
    public var idempotencyKey: String?

    public init(orderId: String, units: [ShipmentUnit], idempotencyKey: String?) {
        self.orderId = orderId
        self.units = units
        self.idempotencyKey = idempotencyKey
    }
}

/// Units of one pick task in a shipment.
public struct ShipmentUnit: Codable, Sendable, Equatable {
    public var pickTaskId: String
    public var qty: Int

    public init(pickTaskId: String, qty: Int) {
        self.pickTaskId = pickTaskId
        self.qty = qty
    }
}

/// `POST /api/shipments/{id}/void` body (the key may come as a header instead).
public struct VoidShipmentRequest: Codable, Sendable, Equatable {
    public var idempotencyKey: String?
    public init(idempotencyKey: String?) { self.idempotencyKey = idempotencyKey }
}

/// A shipment's state: `active` (its units are locked) or `voided` (released).
public struct ShipmentStatus: Codable, Sendable, Equatable {
    public var id: String?
    public var status: String

    public init(id: String?, status: String) {
        self.id = id
        self.status = status
    }
}

/// Every error the API returns: a stable machine code and a sentence for people.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var message: String

    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
}
