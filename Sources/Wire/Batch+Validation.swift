/// A batch as the server answers it, held to the same ``FieldRules`` the server holds orders to: a
/// server that is not ours, or not well, could otherwise hand the station a 500 MB SKU, a location
/// with terminal escapes or a count past any sum, which the station would store and show.
///
///     try batch.validate()   // before it is cached or shown
extension Batch {
    /// The most tasks one batch answer may hold (the server's own batches hold at most 1,000).
    public static let maxTasks = 1000

    /// Throws the first field that breaks the API's rules, named as a path in the answer
    /// (`tasks[3].sku`).
    public func validate() throws(FieldError) {
        try FieldRules.text(id, field: "id")
        try FieldRules.optionalText(status, field: "status")
        if let closedAt { try FieldRules.time(closedAt, field: "closedAt") }
        try FieldRules.count(tasks.count, field: "tasks", atMost: Self.maxTasks)
        for (index, task) in tasks.enumerated() {
            try task.validate(at: "tasks[\(index)]")
        }
        if let shortages {
            try FieldRules.count(shortages.count, field: "shortages", atMost: Self.maxTasks * 3)
            for (index, shortage) in shortages.enumerated() {
                try FieldRules.text(shortage.pickTaskId, field: "shortages[\(index)].pickTaskId")
                try FieldRules.quantity(shortage.qty, field: "shortages[\(index)].qty", in: FieldRules.unitCount)
                try FieldRules.text(shortage.reason, field: "shortages[\(index)].reason")
            }
        }
    }
}

extension BatchList {
    /// Throws the first field of the list that breaks the API's rules.
    public func validate() throws(FieldError) {
        try FieldRules.count(batches.count, field: "batches", atMost: Self.limit)
        for (index, batch) in batches.enumerated() {
            let at = "batches[\(index)]"
            try FieldRules.text(batch.id, field: "\(at).id")
            try FieldRules.text(batch.status, field: "\(at).status")
            try FieldRules.text(batch.createdAt, field: "\(at).createdAt")
            try FieldRules.optionalText(batch.closedAt, field: "\(at).closedAt")
            try FieldRules.quantity(batch.tasks, field: "\(at).tasks", in: 0...Batch.maxTasks)
            try FieldRules.quantity(batch.complete, field: "\(at).complete", in: 0...Batch.maxTasks)
        }
    }
}

extension PickTask {
    /// Throws the first field of the task that breaks the API's rules (those its order line was
    /// held to, and counts within ``FieldRules/unitCount``).
    func validate(at path: String) throws(FieldError) {
        for (value, name) in [(id, "id"), (batchId, "batchId"), (orderId, "orderId"), (lineId, "lineId")] {
            try FieldRules.text(value, field: "\(path).\(name)")
        }
        try FieldRules.text(sku, field: "\(path).sku")
        try FieldRules.optionalText(name, field: "\(path).name")
        try FieldRules.text(location, field: "\(path).location")
        try FieldRules.barcode(barcode, field: "\(path).barcode")
        try FieldRules.optionalText(lot, field: "\(path).lot")
        try FieldRules.optionalText(bestBefore, field: "\(path).bestBefore")
        try FieldRules.optionalText(caseGtin, field: "\(path).caseGtin")
        for (value, name) in [
            (qtyRequired, "qtyRequired"), (qtyPicked, "qtyPicked"), (qtyLocked, "qtyLocked"), (qtyShort, "qtyShort"),
        ] {
            try FieldRules.quantity(value, field: "\(path).\(name)", in: FieldRules.unitCount)
        }
        if let caseQty { try FieldRules.quantity(caseQty, field: "\(path).caseQty", in: FieldRules.unitCount) }
        if let tote { try FieldRules.quantity(tote, field: "\(path).tote", in: 1...Self.maxTote) }
    }

    /// The highest tote number: one per order of a batch, which holds at most ``Batch/maxTasks`` lines.
    static let maxTote = Batch.maxTasks
}
