import Synchronization

/// A count that only goes up, safe to add to from any thread: one relaxed atomic add, no lock and no
/// allocation, so it can sit on a hot path (a scan, a frame).
///
///     let sent = Counter()
///     sent.add()
///     text.sample("scanpick_station_sent_total", value: sent.value)
public final class Counter: Sendable {
    private let count = Atomic<UInt64>(0)

    public init() {}

    /// Adds `amount` (wrapping, never trapping: a counter that wraps after 2^64 events is a reset).
    public func add(_ amount: UInt64 = 1) {
        count.wrappingAdd(amount, ordering: .relaxed)
    }

    public var value: UInt64 { count.load(ordering: .relaxed) }
}
