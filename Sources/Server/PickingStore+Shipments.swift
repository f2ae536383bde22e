import Storage
import Wire

/// Shipments, the pack–pick interlock: a label locks its units at picked, voiding it releases them.
extension PickingStore {
    /// A label exists: these units are now in a box and locked at picked.
    func createShipment(_ request: CreateShipmentRequest) throws -> ShipmentStatus {
        guard try db.row("SELECT 1 AS found FROM orders WHERE org = ? AND id = ?", [org, request.orderId]) != nil else {
            throw PickingError.notFound(.order, id: request.orderId)
        }
        guard !request.units.isEmpty else {
            throw PickingError.emptyShipment
        }
        guard Set(request.units.map(\.pickTaskId)).count == request.units.count else {
            throw PickingError.repeatedShipmentUnit
        }
        for taskId in request.units.map(\.pickTaskId).sorted() {  // one lock order: no deadlocks
            _ = try lockedPickTask(taskId)
        }
        let id = "shipment-" + Self.newIdentifier()
        try db.runLater(
            "INSERT INTO shipments (org, id, order_id, status, created_at) VALUES (?, ?, ?, 'active', ?)",
            [org, id, request.orderId, now])
        for unit in request.units {
            let task = try pickTask(unit.pickTaskId)
            guard task.orderId.utf8.elementsEqual(request.orderId.utf8) else {  // as the database compares
                throw PickingError.taskNotInOrder(task: task, order: request.orderId)
            }
            let free = task.qtyPicked - task.qtyLocked
            guard unit.qty <= free else {
                throw PickingError.notPicked(task: task, free: free, asked: unit.qty)
            }
            try db.runLater(
                "INSERT INTO shipment_units (org, shipment_id, pick_task_id, qty) VALUES (?, ?, ?, ?)",
                [org, id, unit.pickTaskId, unit.qty])
        }
        return ShipmentStatus(id: id, status: "active")
    }

    /// Voids a label: its units are released at once (the lock is computed, nothing to clean up).
    func voidShipment(_ id: String) throws -> ShipmentStatus {
        guard try db.row("SELECT 1 AS found FROM shipments WHERE org = ? AND id = ?", [org, id]) != nil else {
            throw PickingError.notFound(.shipment, id: id)
        }
        try db.runLater(
            "UPDATE shipments SET status = 'voided', voided_at = ? WHERE org = ? AND id = ? AND status = 'active'",
            [now, org, id])
        return ShipmentStatus(id: id, status: "voided")
    }
}
