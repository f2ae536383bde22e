import GS1

/// A request body whose fields can be checked against ``FieldRules`` before anything uses them.
public protocol ValidatedRequest {
    /// Throws for the first field that breaks a rule.
    func validate() throws(FieldError)
}

extension SubmitScanRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(pickTaskId, field: "pickTaskId")
        try FieldRules.barcode(barcode, field: "barcode")
        try FieldRules.time(scannedAt, field: "scannedAt")
        try FieldRules.text(workerId, field: "workerId")
    }
}

extension PickRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(pickTaskId, field: "pickTaskId")
        try FieldRules.quantity(qty, field: "qty", in: FieldRules.pickQuantity)
        try FieldRules.text(workerId, field: "workerId")
        try FieldRules.time(at, field: "at")
    }
}

extension ShortPickRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(pickTaskId, field: "pickTaskId")
        try FieldRules.quantity(qty, field: "qty", in: FieldRules.pickQuantity)
        try FieldRules.shortReason(reason)
        try FieldRules.text(workerId, field: "workerId")
        try FieldRules.time(at, field: "at")
    }
}

extension FieldRules {
    /// A short pick's `reason`: one of ``ShortReason``'s values.
    public static func shortReason(_ reason: String, field: String = "reason") throws(FieldError) {
        guard ShortReason(rawValue: reason) != nil else {
            let shown = String(reason.unicodeScalars.prefix(40).map { isRefused($0) ? "?" : Character($0) })
            throw FieldError(
                field: field,
                problem:
                    "must be one of \(ShortReason.allCases.map(\.rawValue).joined(separator: ", ")), not '\(shown)'")
        }
    }
}

extension SetQtyRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(pickTaskId, field: "pickTaskId")
        try FieldRules.quantity(from, field: "from", in: FieldRules.unitCount)
        try FieldRules.quantity(to, field: "to", in: FieldRules.unitCount)
        try FieldRules.text(workerId, field: "workerId")
        try FieldRules.time(at, field: "at")
    }
}

extension CreateShipmentRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(orderId, field: "orderId")
        try FieldRules.count(units.count, field: "units", atMost: FieldRules.maxShipmentUnits)
        for (index, unit) in units.enumerated() {
            try FieldRules.text(unit.pickTaskId, field: "units[\(index)].pickTaskId")
            try FieldRules.quantity(unit.qty, field: "units[\(index)].qty", in: FieldRules.shipmentQuantity)
        }
        try FieldRules.actionTime(at)
    }
}

extension VoidShipmentRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.actionTime(at)
    }
}

extension FieldRules {
    /// A shipment's `at`, which every mutating request carries: without it the server could not
    /// tell a resend from after its idempotency window, and might count it twice.
    static func actionTime(_ at: String?) throws(FieldError) {
        guard let at else {
            throw FieldError(
                field: "at", problem: "is required: when the action happened (RFC 3339, e.g. 2026-12-01T14:36:53Z)")
        }
        try FieldRules.time(at, field: "at")
    }
}

extension UpsertOrdersRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.count(orders.count, field: "orders", atMost: FieldRules.maxOrdersPerRequest)
        var lines = 0
        var orderIds: Set<String> = []
        for (index, order) in orders.enumerated() {
            let at = "orders[\(index)]"
            try FieldRules.text(order.id, field: "\(at).id")
            guard orderIds.insert(order.id).inserted else {
                throw FieldError(field: "\(at).id", problem: "repeats an earlier order's id ('\(order.id)')")
            }
            try FieldRules.text(order.carrier, field: "\(at).carrier")
            try FieldRules.text(order.zone, field: "\(at).zone")
            try FieldRules.shipDate(order.shipBy, field: "\(at).shipBy")
            lines += order.lines.count
            try FieldRules.count(lines, field: "orders[].lines", atMost: FieldRules.maxOrderLinesPerRequest)
            var lineIds: Set<String> = []
            for (lineIndex, line) in order.lines.enumerated() {
                let lineAt = "\(at).lines[\(lineIndex)]"
                try FieldRules.text(line.id, field: "\(lineAt).id")
                guard lineIds.insert(line.id).inserted else {
                    throw FieldError(field: "\(lineAt).id", problem: "repeats an earlier line's id ('\(line.id)')")
                }
                try FieldRules.text(line.sku, field: "\(lineAt).sku")
                try FieldRules.optionalText(line.name, field: "\(lineAt).name")
                try FieldRules.text(line.location, field: "\(lineAt).location")
                try FieldRules.barcode(line.barcode, field: "\(lineAt).barcode")
                try FieldRules.quantity(line.qty, field: "\(lineAt).qty", in: FieldRules.unitCount)
                try line.validateLotAndCase(at: lineAt)
            }
        }
    }
}

extension CreateBatchRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.optionalText(filters.carrier, field: "filters.carrier")
        try FieldRules.optionalText(filters.zone, field: "filters.zone")
        if let shipBy = filters.shipByOnOrBefore { try FieldRules.shipDate(shipBy, field: "filters.shipByOnOrBefore") }
        if let ids = filters.orderIds {
            try FieldRules.count(ids.count, field: "filters.orderIds", atMost: FieldRules.maxOrderIds)
            for (index, id) in ids.enumerated() { try FieldRules.text(id, field: "filters.orderIds[\(index)]") }
        }
    }
}

extension OrderLine {
    /// The optional GS1 fields: a lot as GS1 data can carry it (AI 10: 1–20 characters of its set), a
    /// real `YYYY-MM-DD` date, and a case GTIN-14 (check digit right, not the item's own) with its
    /// units, both or neither.
    func validateLotAndCase(at lineAt: String) throws(FieldError) {
        if let lot {
            guard (1...20).contains(lot.utf8.count), GS1ElementString.isCharacterSet82(lot) else {
                throw FieldError(
                    field: "\(lineAt).lot",
                    problem: "must be 1–20 characters GS1 allows in a lot (A–Z a–z 0–9 !\"%&'()*+,-./:;<=>?_)")
            }
        }
        if let bestBefore, GS1Date(iso: bestBefore) == nil {
            throw FieldError(
                field: "\(lineAt).bestBefore", problem: "must be a date, YYYY-MM-DD ('\(bestBefore)' is not)")
        }
        switch (caseGtin, caseQty) {
        case (nil, nil): break
        case (let gtin?, let qty?):
            guard gtin.utf8.count == 14, GS1ElementString.hasValidCheckDigit(gtin) else {
                throw FieldError(
                    field: "\(lineAt).caseGtin", problem: "must be a GTIN-14: 14 digits, the last their check digit")
            }
            // The item's own GTIN in 14 digits is the item, not a case: a scan of it would count one.
            guard !GTIN.mayBeSameItem(gtin, barcode) else {
                throw FieldError(
                    field: "\(lineAt).caseGtin",
                    problem: "is the line's own item (\(barcode)); a case has a GTIN-14 of its own")
            }
            try FieldRules.quantity(qty, field: "\(lineAt).caseQty", in: FieldRules.pickQuantity)
        case (nil, _?): throw FieldError(field: "\(lineAt).caseGtin", problem: "is needed with caseQty")
        case (_?, nil): throw FieldError(field: "\(lineAt).caseQty", problem: "is needed with caseGtin")
        }
    }
}
