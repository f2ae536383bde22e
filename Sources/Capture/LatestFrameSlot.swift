import Foundation

/// The latest-frame policy in one place: a producer (the capture thread) puts frames in, the
/// consumer (the decoder) takes the newest; a frame replaced before it was taken is dropped and
/// counted, so the decoder never works through a backlog and latency never builds up.
///
///     slot.put(frame)                   // capture thread
///     let newest = slot.take()          // decoder: waits, then gets the newest (nil once closed)
public final class LatestFrameSlot: @unchecked Sendable {
    // Every field is guarded by `condition`.
    private let condition = NSCondition()
    private var latest: Frame?
    private var closed = false
    private var dropped = 0
    private var waiting = 0

    public init() {}

    /// Offers a frame; a frame still waiting is replaced (and counted as dropped).
    public func put(_ frame: Frame) {
        condition.withLock {
            if latest != nil { dropped += 1 }
            latest = frame
            condition.signal()
        }
    }

    /// Waits for a frame and takes the newest; nil once closed.
    public func take() -> Frame? {
        condition.lock()
        defer { condition.unlock() }
        waiting += 1
        while latest == nil && !closed { condition.wait() }
        waiting -= 1
        if closed { return nil }
        defer { latest = nil }
        return latest
    }

    /// Wakes a waiting `take()` with nil, for good.
    public func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// Frames replaced before anyone took them.
    public var droppedFrames: Int { condition.withLock { dropped } }

    public var isClosed: Bool { condition.withLock { closed } }

    /// How many `take()` calls are waiting for a frame now.
    public var waitingTakers: Int { condition.withLock { waiting } }
}
