import Testing
import Wire

@testable import Server

/// The store speaks the picking domain; the API turns each domain error into the status, code and
/// sentence that are the contract stations and clients rely on (README, "HTTP API"). The process
/// tests reach most of these through a real server; this pins the whole table in one place.
@Suite struct PickingErrorMappingTests {
    let task = PickTask(
        id: "t1", batchId: "b1", orderId: "o1", lineId: "l1", sku: "SKU", location: "A1", barcode: "036000291452",
        qtyRequired: 3, qtyPicked: 2, qtyLocked: 1)

    @Test func everyDomainErrorHasItsStatusAndCode() {
        let table: [(PickingError, Int, String)] = [
            (.notFound(.pickTask, id: "t9"), 404, "not_found"),
            (.barcodeMismatch(scanned: "5901234123457", task: task), 422, "barcode_mismatch"),
            (.overPick(task: task, asked: .scan), 422, "over_pick"),
            (.overPick(task: task, asked: .pick(2)), 422, "over_pick"),
            (.overPick(task: task, asked: .setQty(4)), 422, "over_pick"),
            (.lockedByShipment(task: task), 422, "locked_by_shipment"),
            (.taskNotInOrder(task: task, order: "o2"), 422, "task_not_in_order"),
            (.notPicked(task: task, free: 1, asked: 2), 422, "not_picked"),
            (.emptyShipment, 400, "invalid_field"),
            (.repeatedShipmentUnit, 400, "bad_request"),
            (.nothingToBatch, 422, "nothing_to_batch"),
            (.batchClosed(batchId: "b1", closedAt: "2026-12-01T10:00:00.000Z"), 409, "batch_closed"),
            (.keyInUse, 409, "request_in_progress"),
            (.keyReused, 422, "idempotency_key_reused"),
            (
                .tooOldToDeduplicate(actionTime: "2020-01-01T00:00:00Z", retentionDays: 30, marginHours: 24), 422,
                "too_old_to_deduplicate"
            ),
            (
                .clockSkew(
                    stationTime: "2000-01-01T00:00:00.000Z", serverTime: "2026-11-30T00:00:00.000Z", toleranceHours: 24),
                422, "clock_skew"
            ),
            (.unavailable("PostgreSQL: the database system is shutting down"), 503, "database_unavailable"),
            (.storage("SQLite error 13: database or disk is full"), 500, "internal_error"),
        ]
        for (error, status, code) in table {
            let answer = APIError(error)
            #expect(answer.status == status, "\(error)")
            #expect(answer.code == code, "\(error)")
        }
    }

    @Test func refusalsSayWhatHappenedWhileDatabaseFailuresKeepTheirDetailsForTheLog() {
        #expect(APIError(.notFound(.pickTask, id: "t9")).message == "pick task t9 does not exist")
        #expect(
            APIError(.overPick(task: task, asked: .pick(2))).message
                == "picking 2 more of t1 would go over the 3 required (2 picked)")
        #expect(
            APIError(.lockedByShipment(task: task)).message == "1 units of A1 are already in a box (task t1)")
        #expect(APIError(.emptyShipment).message == "units must list at least one pick task")
        let unavailable = APIError(.unavailable("PostgreSQL: connection refused"))
        #expect(unavailable == .databaseUnavailable)
        #expect(!unavailable.message.contains("refused"))
        #expect(!APIError(.storage("SQLite error 13: disk full")).message.contains("disk"))
    }
}
