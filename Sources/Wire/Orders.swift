import JSONText

/// An order as an ERP feeds it: `POST /api/orders` upserts these by id.
public struct Order: Codable, Sendable, Equatable {
    public var id: String
    public var carrier: String
    public var zone: String
    /// The ship-by date, `YYYY-MM-DD` (compared as text, so keep one format).
    public var shipBy: String
    public var lines: [OrderLine]

    public init(id: String, carrier: String, zone: String, shipBy: String, lines: [OrderLine]) {
        self.id = id
        self.carrier = carrier
        self.zone = zone
        self.shipBy = shipBy
        self.lines = lines
    }
}

/// One product line of an order. `name`, `lot`, `bestBefore`, `caseGtin` and `caseQty` are
/// optional: `name` is what pickers read (a line without one shows its SKU); a scan whose GS1 data
/// names another lot, or expires before `bestBefore`, is refused; scanning the case GTIN-14 counts
/// `caseQty` units at once.
public struct OrderLine: Codable, Sendable, Equatable {
    public var id: String
    public var sku: String
    /// The product's name as pickers read it ("COFFEE ARABICA 1KG"): 1–200 characters.
    public var name: String?
    public var location: String
    public var barcode: String
    public var qty: Int
    /// The batch or lot to pick (GS1 AI 10: up to 20 characters).
    public var lot: String?
    /// The earliest expiry or best-before date accepted, `YYYY-MM-DD`.
    public var bestBefore: String?
    /// The GTIN-14 of a case of this item.
    public var caseGtin: String?
    /// Units in one case (with `caseGtin`).
    public var caseQty: Int?

    public init(
        id: String, sku: String, location: String, barcode: String, qty: Int, lot: String? = nil,
        bestBefore: String? = nil, caseGtin: String? = nil, caseQty: Int? = nil, name: String? = nil
    ) {
        self.id = id
        self.sku = sku
        self.name = name
        self.location = location
        self.barcode = barcode
        self.qty = qty
        self.lot = lot
        self.bestBefore = bestBefore
        self.caseGtin = caseGtin
        self.caseQty = caseQty
    }
}

/// `POST /api/orders` body.
public struct UpsertOrdersRequest: Codable, Sendable, Equatable {
    public var orders: [Order]
    public init(orders: [Order]) { self.orders = orders }
}

/// `POST /api/orders` answer.
public struct UpsertOrdersResponse: Codable, Sendable, Equatable {
    public var upserted: Int
    public init(upserted: Int) { self.upserted = upserted }
}

/// `POST /api/batches` body: which order lines the new batch takes. A field it does not know, here
/// or among the filters, is refused (``FieldError``): a filter left out by a typo would not narrow
/// the batch but widen it to every order.
public struct CreateBatchRequest: Codable, Sendable, Equatable {
    public var filters: BatchFilters
    public init(filters: BatchFilters) { self.filters = filters }

    private enum CodingKeys: String, CodingKey, CaseIterable { case filters }

    public init(from decoder: any Decoder) throws {
        try refuseUnknownFields(in: decoder, known: CodingKeys.allCases, under: "")
        filters = try decoder.container(keyedBy: CodingKeys.self).decode(BatchFilters.self, forKey: .filters)
    }
}

/// Filters for a new batch; all given ones must match, none given matches every order.
public struct BatchFilters: Codable, Sendable, Equatable {
    public var carrier: String?
    public var zone: String?
    public var shipByOnOrBefore: String?
    public var orderIds: [String]?

    public init(carrier: String? = nil, zone: String? = nil, shipByOnOrBefore: String? = nil, orderIds: [String]? = nil)
    {
        self.carrier = carrier
        self.zone = zone
        self.shipByOnOrBefore = shipByOnOrBefore
        self.orderIds = orderIds
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case carrier, zone, shipByOnOrBefore, orderIds }

    public init(from decoder: any Decoder) throws {
        try refuseUnknownFields(in: decoder, known: CodingKeys.allCases, under: "filters.")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        carrier = try container.decodeIfPresent(String.self, forKey: .carrier)
        zone = try container.decodeIfPresent(String.self, forKey: .zone)
        shipByOnOrBefore = try container.decodeIfPresent(String.self, forKey: .shipByOnOrBefore)
        orderIds = try container.decodeIfPresent([String].self, forKey: .orderIds)
    }
}

/// Throws a ``FieldError`` naming the first key of the object being decoded that is not one of
/// `known` (`prefix` is the object's path, e.g. `filters.`).
private func refuseUnknownFields(in decoder: any Decoder, known: [any CodingKey], under prefix: String) throws {
    let names = Set(known.map(\.stringValue))
    let keys = try decoder.container(keyedBy: AnyFieldKey.self).allKeys.map(\.stringValue).sorted()
    guard let unknown = keys.first(where: { !names.contains($0) }) else { return }
    let shown = unknown.unicodeScalars.count <= 64 ? unknown : String(unknown.unicodeScalars.prefix(64)) + "…"
    throw FieldError(
        field: prefix + shown, problem: "is not a field here (it takes \(names.sorted().joined(separator: ", ")))")
}

/// Any key of a JSON object, to list them all.
private struct AnyFieldKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Order: JSONBytesEncodable {
    public var jsonBytes: [UInt8] {
        var object = JSONObjectWriter()  // keys in sorted order
        object.add("carrier", string: carrier)
        object.add("id", string: id)
        object.add("lines", raw: lines.jsonBytes)
        object.add("shipBy", string: shipBy)
        object.add("zone", string: zone)
        return object.finishedBytes()
    }
}

extension OrderLine: JSONBytesEncodable {
    public var jsonBytes: [UInt8] {
        var object = JSONObjectWriter()  // keys in sorted order
        object.add("barcode", string: barcode)
        object.add("bestBefore", string: bestBefore)
        object.add("caseGtin", string: caseGtin)
        object.add("caseQty", number: caseQty)
        object.add("id", string: id)
        object.add("location", string: location)
        object.add("lot", string: lot)
        object.add("name", string: name)
        object.add("qty", number: qty)
        object.add("sku", string: sku)
        return object.finishedBytes()
    }
}
