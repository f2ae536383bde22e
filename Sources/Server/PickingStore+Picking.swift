import Foundation
import GS1
import Storage
import Wire

/// Picking: the counted changes to a task (a scan, a pick, a set quantity, a short), each checked
/// against the task and its batch and recorded in the events table.
extension PickingStore {
    /// ``lockedPickTask(_:)`` for a change to its picked or short count: a task of a closed batch is
    /// refused (409) before anything about the change itself is judged (an open or complete one
    /// takes changes). The task and its batch's status are one read. With PostgreSQL the batch's
    /// row is locked too, after the task's, until commit: a close waits for a pick in progress (and a
    /// pick begun after a close sees it), and the last picks of a batch's tasks, made side by side,
    /// see each other when one of them makes it complete.
    private func lockedTaskOfAnOpenBatch(_ id: String) throws -> PickTask {
        if dialect.locksRows {
            try db.runLater(Self.lockPickTask, [org, id])
            try db.runLater(Self.lockBatchOfTask, [org, id])
        }
        guard let row = try db.row(Self.taskAndBatchByIdQuery, [org, id]) else {
            throw PickingError.notFound(.pickTask, id: id)
        }
        let task = try Self.pickTask(row)
        if try row.optionalString("batch_status") == "closed" {
            throw PickingError.batchClosed(batchId: task.batchId, closedAt: try row.optionalString("batch_closed_at"))
        }
        return task
    }

    /// One scan: the barcode must name the task's item (GTIN forms alike), counting one unit, or its
    /// case (`caseQty` units, or a GS1 (37) count), by the rule the station applies (``ScanRule``);
    /// GS1 data must carry the line's lot and expire no earlier than its `bestBefore`; and the units
    /// must fit what the task still needs.
    func submitScan(_ request: SubmitScanRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        // The station judged the scan knowing what its reader reported; the server cannot: any
        // reading of an ambiguous 8-digit code that names the task's item is accepted here.
        let outcome = ScanRule.evaluate(
            request.barcode, for: task.scanRuleLine, sameItem: { GTIN.mayBeSameItem($0, $1) })
        let units: Int
        switch outcome {
        case .units(let counted): units = counted
        case .otherItem: throw PickingError.barcodeMismatch(scanned: request.barcode, task: task)
        case .lotMismatch, .expired, .malformed, .noCount: throw PickingError.scanRefused(outcome, task: task)
        }
        guard !task.isComplete else {
            throw PickingError.overPick(task: task, asked: .scan)
        }
        let total = try Self.picked(task, adding: units, asked: .scanUnits(units))
        return try setPicked(task, to: total, kind: "scan", worker: request.workerId, at: request.scannedAt, key: key)
    }

    /// A tap that picks `qty` more units (its range was checked against ``FieldRules``).
    func pick(_ request: PickRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        let total = try Self.picked(task, adding: request.qty, asked: .pick(request.qty))
        return try setPicked(task, to: total, kind: "pick", worker: request.workerId, at: request.at, key: key)
    }

    /// The task's picked count with `units` more, refused as an over-pick past what the task still
    /// needs: picked + short may not pass required (sums checked: no count can overflow).
    private static func picked(_ task: PickTask, adding units: Int, asked: PickingError.PickChange) throws -> Int {
        let (total, overflow) = task.qtyPicked.addingReportingOverflow(units)
        let (room, roomOverflow) = task.qtyRequired.subtractingReportingOverflow(task.qtyShort)
        guard !overflow, !roomOverflow, total <= room else {
            throw PickingError.overPick(task: task, asked: asked)
        }
        return total
    }

    /// A tap that sets the picked count; never below the units already in a box, nor above what
    /// the task requires. The count set wins over shorts reported before: those that no longer fit
    /// beside it shrink, the latest reported first (``PickTask/settingPicked(to:)``).
    func setQty(_ request: SetQtyRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        guard request.to >= task.qtyLocked else {
            throw PickingError.lockedByShipment(task: task)
        }
        guard request.to <= task.qtyRequired else {
            throw PickingError.overPick(task: task, asked: .setQty(request.to))
        }
        let updated = task.settingPicked(to: request.to)
        if updated.qtyShort < task.qtyShort {
            try withdrawShortages(
                of: task, units: task.qtyShort - updated.qtyShort, key: key, worker: request.workerId, at: request.at)
        }
        return try setPicked(
            updated, to: request.to, kind: "setQty", worker: request.workerId, at: request.at, key: key,
            was: task)
    }

    /// Units that will not be picked, with why: picked + short may not pass required (422
    /// `over_pick`, as for picks).
    func short(_ request: ShortPickRequest, key: String) throws -> PickTask {
        let task = try lockedTaskOfAnOpenBatch(request.pickTaskId)
        let (total, overflow) = task.qtyShort.addingReportingOverflow(request.qty)
        let (room, roomOverflow) = task.qtyRequired.subtractingReportingOverflow(task.qtyPicked)
        guard !overflow, !roomOverflow, total <= room else {
            throw PickingError.overPick(task: task, asked: .short(request.qty))
        }
        try db.runLater("UPDATE pick_tasks SET qty_short = ? WHERE org = ? AND id = ?", [total, org, task.id])
        try db.runLater(
            """
            INSERT INTO shortages (org, pick_task_id, reason, qty, recorded_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (org, pick_task_id, reason) DO UPDATE SET qty = shortages.qty + excluded.qty,
                recorded_at = excluded.recorded_at
            """, [org, task.id, request.reason, request.qty, now])
        try recordEvent(
            "short", task: task.id, delta: request.qty, after: total, worker: request.workerId, at: request.at,
            key: key, reason: request.reason)
        var updated = task
        updated.qtyShort = total
        try settle(updated.batchId)  // a short always leaves its task nearer done
        return updated
    }

    /// Withdraws `units` of a task's shorts (a set-qty found units reported missing), from the
    /// reason reported last; recorded as a negative short.
    private func withdrawShortages(of task: PickTask, units: Int, key: String, worker: String, at: String) throws {
        var left = units
        let rows = try db.rows(
            "SELECT reason, qty FROM shortages WHERE org = ? AND pick_task_id = ? ORDER BY recorded_at DESC, reason",
            [org, task.id])
        for row in rows where left > 0 {
            let reason = try row.string("reason")
            let qty = try row.int("qty")
            let taken = min(qty, left)
            if taken == qty {
                try db.runLater(
                    "DELETE FROM shortages WHERE org = ? AND pick_task_id = ? AND reason = ?", [org, task.id, reason])
            } else {
                try db.runLater(
                    "UPDATE shortages SET qty = qty - ? WHERE org = ? AND pick_task_id = ? AND reason = ?",
                    [taken, org, task.id, reason])
            }
            left -= taken
        }
        try db.runLater(
            "UPDATE pick_tasks SET qty_short = ? WHERE org = ? AND id = ?", [task.qtyShort - units, org, task.id])
        try recordEvent(
            "short", task: task.id, delta: -units, after: task.qtyShort - units, worker: worker, at: at, key: key,
            reason: nil)
    }

    /// Sets the task's picked count (of a task of a batch not closed) and records the event; the
    /// batch is settled (complete or open again) when the task was done or now is. `was` is the
    /// task before the change (`task` itself unless a set-qty changed its shorts too).
    private func setPicked(
        _ task: PickTask, to qty: Int, kind: String, worker: String, at: String, key: String, was: PickTask? = nil
    ) throws -> PickTask {
        let before = was ?? task
        try db.runLater("UPDATE pick_tasks SET qty_picked = ? WHERE org = ? AND id = ?", [qty, org, task.id])
        try recordEvent(
            kind, task: task.id, delta: qty - before.qtyPicked, after: qty, worker: worker, at: at, key: key)
        var updated = task
        updated.qtyPicked = qty
        if before.isComplete || updated.isComplete { try settle(task.batchId) }
        return updated
    }

    /// Records one counted change in the events table (the audit trail).
    private func recordEvent(
        _ kind: String, task: String, delta: Int, after: Int, worker: String, at: String, key: String,
        reason: String? = nil
    ) throws {
        try db.runLater(
            """
            INSERT INTO events (org, kind, pick_task_id, delta, qty_after, worker_id, at, idempotency_key, recorded_at,
                                station, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [org, kind, task, delta, after, worker, at, key, now, station, reason])
    }
}
