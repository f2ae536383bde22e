import Foundation
import Timestamps
import Wire

extension NewAction {
    /// A tap that picks `qty` more units of a task ("pick A1 · ×2"), with a fresh idempotency key.
    public static func pick(
        org: String, pickTaskId: String, location: String?, qty: Int, worker: String, at: Date = Date()
    ) throws -> NewAction {
        let key = ActionKey.make()
        let body = PickRequest(
            pickTaskId: pickTaskId, qty: qty, idempotencyKey: key, workerId: worker, at: Timestamp.iso8601(at))
        return NewAction(
            org: org, kind: .pick, pickTaskId: pickTaskId, payload: try encode(body), idempotencyKey: key,
            label: "pick \(location ?? pickTaskId) · ×\(qty)")
    }

    /// A tap that sets the picked count ("qty C2 · 1→3").
    public static func setQty(
        org: String, pickTaskId: String, location: String?, from: Int, to: Int, worker: String, at: Date = Date()
    ) throws -> NewAction {
        let key = ActionKey.make()
        let body = SetQtyRequest(
            pickTaskId: pickTaskId, from: from, to: to, idempotencyKey: key, workerId: worker, at: Timestamp.iso8601(at)
        )
        return NewAction(
            org: org, kind: .setQty, pickTaskId: pickTaskId, payload: try encode(body), idempotencyKey: key,
            label: "qty \(location ?? pickTaskId) · \(from)→\(to)")
    }

    /// A validated scan of one unit ("scan A1 · 036000291452"); `scannedAt` is the frame's time.
    public static func scan(
        org: String, pickTaskId: String, location: String?, barcode: String, worker: String, scannedAt: Date
    ) throws -> NewAction {
        let key = ActionKey.make()
        let body = SubmitScanRequest(
            pickTaskId: pickTaskId, barcode: barcode, scannedAt: Timestamp.iso8601(scannedAt), idempotencyKey: key,
            workerId: worker)
        return NewAction(
            org: org, kind: .scan, pickTaskId: pickTaskId, payload: try encode(body), idempotencyKey: key,
            label: "scan \(location ?? pickTaskId) · \(barcode)")
    }

    /// The body as sent; a failure is thrown, never an empty body queued in its place.
    private static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }
}
