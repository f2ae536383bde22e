import Foundation
import Synchronization
import Timestamps
import Wire

/// The picker's call for the shift lead ("Call lead" on the station's page): one at a time, sent in
/// every heartbeat (`help`) until the picker cancels it or the lead clears it on the fleet page (the
/// heartbeat's answer then names it). Kept in memory: a restarted station has no call, and its next
/// heartbeat says so. Each change is counted, so the heartbeat sender sends one at once.
///
///     let call = station.help.call(by: "Ana Lima")
///     station.help.cancel()
public final class HelpCall: Sendable {
    private let state = Mutex<(call: StationHeartbeat.Help?, changes: Int)>((nil, 0))

    public init() {}

    /// The call in force, or nil.
    public var current: StationHeartbeat.Help? { state.withLock { $0.call } }

    /// How many times the call has changed since the station started.
    var changes: Int { state.withLock { $0.changes } }

    /// Calls the lead for `by` (the picker's name), or returns the call already made: a second tap
    /// does not make a newer call the lead would have to clear again.
    @discardableResult
    public func call(by name: String, at time: Date = Date()) -> StationHeartbeat.Help {
        state.withLock { state in
            if let call = state.call { return call }
            let call = StationHeartbeat.Help(
                since: Timestamp.iso8601(time),
                by: StationHeartbeat.fitted(name, maxLength: StationHeartbeat.maxNameLength))
            state = (call, state.changes + 1)
            return call
        }
    }

    /// The picker cancels the call (nothing happens when there is none).
    public func cancel() {
        state.withLock { state in
            guard state.call != nil else { return }
            state = (nil, state.changes + 1)
        }
    }

    /// The lead cleared the call made at `since`: it ends if it is still the one in force (a newer
    /// call stays). Returns whether it ended.
    @discardableResult
    func cleared(since: String) -> Bool {
        state.withLock { state in
            guard state.call?.since == since else { return false }
            state = (nil, state.changes + 1)
            return true
        }
    }
}
