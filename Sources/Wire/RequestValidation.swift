/// A request body whose fields can be checked against ``FieldRules`` before anything uses them.
public protocol ValidatedRequest {
    /// Throws for the first field that breaks a rule.
    func validate() throws(FieldError)
}

extension SubmitScanRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(pickTaskId, field: "pickTaskId")
        try FieldRules.barcode(barcode, field: "barcode")
        try FieldRules.text(scannedAt, field: "scannedAt")
        try FieldRules.text(workerId, field: "workerId")
    }
}

extension PickRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(pickTaskId, field: "pickTaskId")
        try FieldRules.quantity(qty, field: "qty", in: FieldRules.pickQuantity)
        try FieldRules.text(workerId, field: "workerId")
        try FieldRules.text(at, field: "at")
    }
}

extension SetQtyRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.text(pickTaskId, field: "pickTaskId")
        try FieldRules.quantity(from, field: "from", in: FieldRules.unitCount)
        try FieldRules.quantity(to, field: "to", in: FieldRules.unitCount)
        try FieldRules.text(workerId, field: "workerId")
        try FieldRules.text(at, field: "at")
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
    }
}

extension VoidShipmentRequest: ValidatedRequest {
    public func validate() throws(FieldError) {}
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
            try FieldRules.text(order.shipBy, field: "\(at).shipBy")
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
                try FieldRules.text(line.location, field: "\(lineAt).location")
                try FieldRules.barcode(line.barcode, field: "\(lineAt).barcode")
                try FieldRules.quantity(line.qty, field: "\(lineAt).qty", in: FieldRules.unitCount)
            }
        }
    }
}

extension CreateBatchRequest: ValidatedRequest {
    public func validate() throws(FieldError) {
        try FieldRules.optionalText(filters.carrier, field: "filters.carrier")
        try FieldRules.optionalText(filters.zone, field: "filters.zone")
        try FieldRules.optionalText(filters.shipByOnOrBefore, field: "filters.shipByOnOrBefore")
        if let ids = filters.orderIds {
            try FieldRules.count(ids.count, field: "filters.orderIds", atMost: FieldRules.maxOrderIds)
            for (index, id) in ids.enumerated() { try FieldRules.text(id, field: "filters.orderIds[\(index)]") }
        }
    }
}
