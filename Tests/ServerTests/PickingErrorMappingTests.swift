import GS1
import PostgresStorage
import SQLiteStorage
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
            (.overPick(task: task, asked: .scanUnits(12)), 422, "over_pick"),
            (.scanRefused(.lotMismatch(expected: "L1", scanned: "L2"), task: task), 422, "lot_mismatch"),
            (
                .scanRefused(
                    .expired(expires: GS1Date(iso: "2026-12-01")!, needs: GS1Date(iso: "2027-01-01")!), task: task),
                422, "expired"
            ),
            (
                .scanRefused(.malformed(.checkDigit(ai: "01", value: "09501101530004")), task: task), 422,
                "malformed_gs1"
            ),
            (.scanRefused(.noCount, task: task), 422, "malformed_gs1"),
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
            (.storageFull("SQLite error 13: database or disk is full"), 503, "storage_full"),
            (.storageFailed("SQLite error 10: disk I/O error"), 503, "storage_failed"),
            (.storage("SQLite error 1: no such table: orders"), 500, "internal_error"),
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
        #expect(!APIError(.storageFull("SQLite error 13: /var/lib/scanpick/x.sqlite")).message.contains("/var"))
        #expect(!APIError(.storageFailed("SQLite error 10: /var/lib/scanpick/x.sqlite")).message.contains("/var"))
    }

    /// Each engine's "no room" and "storage failed" become the domain's, so both stores answer 503
    /// `storage_full` or `storage_failed` (a PostgreSQL disk cannot be filled in a test here).
    @Test func bothEnginesStorageFailuresAreSaidAsSuch() {
        func code(_ error: any Error) -> String? { (error as? PickingError).map { APIError($0).code } }
        let postgres = { (state: String) in
            PostgresServerStore.domainError(
                PostgresError(sqlState: state, message: "could not extend file", isConnectionFailure: false))
        }
        #expect(code(postgres("53100")) == "storage_full")
        #expect(code(postgres("53200")) == "storage_failed")  // out of memory
        #expect(code(postgres("58030")) == "storage_failed")  // io_error
        #expect(code(postgres("42P01")) == "internal_error")
        let sqlite = { (code: Int32) in
            SQLiteServerStore.domainError(SQLiteError.sqlite(code: code, message: "m", sql: nil))
        }
        #expect(code(sqlite(13)) == "storage_full")
        #expect(code(sqlite(10 | 3 << 8)) == "storage_failed")  // SQLITE_IOERR_WRITE
        #expect(code(sqlite(1)) == "internal_error")
        #expect(
            code(SQLiteServerStore.domainError(SQLiteError.fileGone(path: "/x", reason: "it was deleted")))
                == "storage_failed")
    }
}
