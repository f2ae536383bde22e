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

    /// A tap reporting `qty` units of a task that will not be picked, with why (`reason`, a
    /// ``ShortReason`` raw value): "short A1 · ×2 not found".
    public static func short(
        org: String, pickTaskId: String, location: String?, qty: Int, reason: ShortReason, worker: String,
        at: Date = Date()
    ) throws -> NewAction {
        let key = ActionKey.make()
        let body = ShortPickRequest(
            pickTaskId: pickTaskId, qty: qty, reason: reason.rawValue, idempotencyKey: key, workerId: worker,
            at: Timestamp.iso8601(at))
        return NewAction(
            org: org, kind: .short, pickTaskId: pickTaskId, payload: try encode(body), idempotencyKey: key,
            label:
                "short \(location ?? pickTaskId) · ×\(qty) \(reason.rawValue.replacingOccurrences(of: "_", with: " "))")
    }

    /// The picker finished batch `batchId` ("close batch-7f…"): the server closes it once the
    /// actions queued before this one are sent. Its body carries the batch's id, the worker and the
    /// time, for the record; the server reads only its key. Refused (``QueueError/badPayload(_:)``)
    /// for an id that cannot stand in a route's path (``ActionKind/isSafePathSegment(_:)``).
    public static func closeBatch(org: String, batchId: String, worker: String, at: Date = Date()) throws -> NewAction {
        guard ActionKind.isSafePathSegment(batchId) else { throw QueueError.badPayload("close \(batchId.prefix(40))") }
        let key = ActionKey.make()
        let body = CloseBatchAction(batchId: batchId, idempotencyKey: key, workerId: worker, at: Timestamp.iso8601(at))
        return NewAction(
            org: org, kind: .closeBatch, pickTaskId: batchId, payload: try encode(body), idempotencyKey: key,
            label: "close \(batchId)")
    }

    /// A queued close's body.
    private struct CloseBatchAction: Encodable {
        var batchId: String
        var idempotencyKey: String
        var workerId: String
        var at: String
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
