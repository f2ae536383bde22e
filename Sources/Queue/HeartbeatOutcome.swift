/// What became of one heartbeat.
public enum HeartbeatOutcome: Sendable, Equatable {
    /// Recorded; `helpCleared` is the `since` of the call for help the shift lead cleared, if the
    /// server says so (``HeartbeatAnswer/helpCleared``).
    case recorded(helpCleared: String?)
    /// The server answered with a refusal (`status` 0: not sent, e.g. no token).
    case refused(status: Int, reason: String)
    case unreachable(String)
}
