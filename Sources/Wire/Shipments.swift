/// `POST /api/shipments`: a label now exists for these units; they are in a box.
public struct CreateShipmentRequest: Codable, Sendable, Equatable {
    public var orderId: String
    public var units: [ShipmentUnit]
    public var idempotencyKey: String?
    /// When the label was made (ISO 8601; required, though optional here so that its absence is
    /// answered with the field's name): the server judges a key it no longer knows by it.
    public var at: String?

    public init(orderId: String, units: [ShipmentUnit], idempotencyKey: String?, at: String? = nil) {
        self.orderId = orderId
        self.units = units
        self.idempotencyKey = idempotencyKey
        self.at = at
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
    /// When the label was voided (ISO 8601), as for ``CreateShipmentRequest/at``.
    public var at: String?

    public init(idempotencyKey: String?, at: String? = nil) {
        self.idempotencyKey = idempotencyKey
        self.at = at
    }
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
