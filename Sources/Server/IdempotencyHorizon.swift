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
/// The judgement rests on the station's clock, so that clock is checked too: a request whose
/// station clock (the `X-ScanPick-Clock` header, when sent) or action time lies further than the
/// margin from the server's now (ahead or behind, and for the action time ahead) is refused (422
/// `clock_skew`): a station booted at 2000-01-01 is told to set its clock instead of having every
/// action judged too old, and one running ahead cannot make old actions look recent.
///
///     let horizon = IdempotencyHorizon(retentionDays: 30, marginHours: 24)
///     try horizon.admit(body, stationClock: clock)  // only for a key not found
struct IdempotencyHorizon: Sendable {
    let retentionDays: Int
    let marginHours: Int

    /// The request header that carries the station's clock when it sent the request (ISO 8601).
    static let clockHeader = "x-scanpick-clock"

    /// The oldest action time a request with an unknown key may carry at `now`.
    func oldest(at now: Date) -> Date {
        now.addingTimeInterval(-Double(retentionDays * 86_400 - marginHours * 3_600))
    }

    /// How far a station's clock may be from the server's: the margin, and never less than five
    /// minutes (a request takes some time to arrive, and a margin of 0 h must not refuse them all).
    var clockTolerance: TimeInterval { max(Double(marginHours) * 3_600, 300) }

    /// Throws ``PickingError/clockSkew(stationTime:serverTime:toleranceHours:)`` when the station's
    /// clock or `body`'s action time is off, then
    /// ``PickingError/tooOldToDeduplicate(actionTime:retentionDays:marginHours:)`` when `body`'s
    /// action happened before the horizon.
    func admit(_ body: some Sendable, stationClock: Date? = nil, now: Date = Date()) throws(PickingError) {
        if let stationClock, abs(stationClock.timeIntervalSince(now)) > clockTolerance {
            throw .clockSkew(
                stationTime: Timestamp.iso8601(stationClock), serverTime: Timestamp.iso8601(now),
                toleranceHours: clockTolerance / 3_600)
        }
        guard let text = (body as? any ActionTimed)?.actionTime, let time = Timestamp.date(text) else { return }
        if time.timeIntervalSince(now) > clockTolerance {
            throw .clockSkew(
                stationTime: text, serverTime: Timestamp.iso8601(now), toleranceHours: clockTolerance / 3_600)
        }
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
extension ShortPickRequest: ActionTimed { var actionTime: String? { at } }
extension CreateShipmentRequest: ActionTimed { var actionTime: String? { at } }
extension VoidShipmentRequest: ActionTimed { var actionTime: String? { at } }
