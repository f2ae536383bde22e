import Foundation
import Timestamps

/// The head of the line when the server has failed it (5xx, 429, …) for a long time: every action
/// behind it waits, since the drain goes oldest first. Found by
/// ``ActionQueue/stuckAction(now:after:)``; the station shows it as needing attention, in its
/// heartbeat, and support may park it behind the rest (``ActionQueue/park(_:by:now:)``).
///
///     if let stuck = try queue.stuckAction(now: Date(), after: 600) { board.set("stuck", stuck.attention(now: Date())) }
public struct StuckAction: Sendable, Equatable {
    public var id: Int
    public var label: String
    /// The server's last answer to it (nil when the last try did not reach the server).
    public var lastStatus: Int?
    /// When the server first failed it (the first of the failures since it last moved).
    public var failingSince: Date
    public var tries: Int
    /// Actions not yet sent that wait behind it.
    public var behind: Int

    /// The fewest tries before an action counts as stuck, however long it has failed.
    public static let minimumTries = 5

    /// "#1 pick A1 · ×1: the server answered 500 for 14 min, 9 tries; the 37 actions behind it wait…".
    public func attention(now: Date) -> Attention {
        let seconds = Int(max(0, now.timeIntervalSince(failingSince)))
        let duration = seconds < 120 ? "\(seconds) s" : "\(seconds / 60) min"
        let answered = lastStatus.map { "the server answered \($0)" } ?? "the server failed it"
        let waiting =
            switch behind {
            case 0: "nothing waits behind it"
            case 1: "the 1 action behind it waits"
            default: "the \(behind) actions behind it wait"
            }
        return Attention(
            code: "action_stuck",
            message:
                "#\(id) \(label): \(answered) for \(duration), \(tries) tries; \(waiting). It is retried with its key; support can move it behind the rest (scanpick queue park \(id)) and look in the server's log for why it fails"
        )
    }
}
