import Foundation
import Timestamps
import Wire

/// The limit of what idempotency can promise. The server keeps a key's first answer for the
/// retention window; stations retry forever. A request whose key the server does not know and
/// whose action happened before the window (less a margin for stations' clocks) may be a resend of
/// one counted long ago whose key has since been pruned: it is refused (422
/// `too_old_to_deduplicate`) instead of being counted again, and the station parks it for support.
/// An action time that does not read as ISO 8601 is not judged.
///
///     let horizon = IdempotencyHorizon(retentionDays: 30, marginHours: 24)
///     try horizon.admit(body)  // only for a key not found
struct IdempotencyHorizon: Sendable {
    let retentionDays: Int
    let marginHours: Int

    /// The oldest action time a request with an unknown key may carry at `now`.
    func oldest(at now: Date) -> Date {
        now.addingTimeInterval(-Double(retentionDays * 86_400 - marginHours * 3_600))
    }

    /// Throws ``PickingError/tooOldToDeduplicate(actionTime:retentionDays:marginHours:)`` when `body`'s
    /// action happened before the horizon.
    func admit(_ body: some Sendable, now: Date = Date()) throws(PickingError) {
        guard let text = (body as? any ActionTimed)?.actionTime, let time = Timestamp.date(text) else { return }
        guard time < oldest(at: now) else { return }
        throw .tooOldToDeduplicate(actionTime: text, retentionDays: retentionDays, marginHours: marginHours)
    }
}

/// A mutating request that says when its action happened.
protocol ActionTimed {
    var actionTime: String? { get }
}

extension SubmitScanRequest: ActionTimed { var actionTime: String? { scannedAt } }
extension PickRequest: ActionTimed { var actionTime: String? { at } }
extension SetQtyRequest: ActionTimed { var actionTime: String? { at } }
extension CreateShipmentRequest: ActionTimed { var actionTime: String? { at } }
extension VoidShipmentRequest: ActionTimed { var actionTime: String? { at } }
