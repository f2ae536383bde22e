import Synchronization

/// Observations counted into fixed buckets, with their sum and count: what a Prometheus histogram
/// exposes. A value type, for owners that keep several inside one lock of their own (one lock per
/// request for all of a request's numbers); ``Histogram`` is the locked one.
///
///     var durations = HistogramCounts(bounds: [0.001, 0.01, 0.1])
///     durations.observe(0.004)  // counted in the 0.01 bucket
public struct HistogramCounts: Sendable, Equatable {
    /// Each bucket's upper bound, ascending; a last bucket, `+Inf`, takes everything above.
    public let bounds: [Double]
    /// How many observations fell in each bucket (not cumulative), `bounds.count + 1` of them.
    public private(set) var counts: [UInt64]
    public private(set) var sum: Double = 0
    public private(set) var count: UInt64 = 0

    /// `bounds` must be ascending (they are constants of the code, not input).
    public init(bounds: [Double]) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "histogram bounds must ascend")
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Counts `value` in the first bucket whose bound is at least it (NaN is ignored). In place: no
    /// allocation.
    public mutating func observe(_ value: Double) {
        guard !value.isNaN else { return }
        var index = bounds.count
        for (position, bound) in bounds.enumerated() where value <= bound {
            index = position
            break
        }
        counts[index] &+= 1
        sum += value
        count &+= 1
    }

    /// The cumulative count at each bound and at `+Inf`, as Prometheus's `_bucket{le=…}` lines want.
    public var cumulative: [UInt64] {
        var running: UInt64 = 0
        return counts.map { count in
            running &+= count
            return running
        }
    }
}

/// A histogram safe to observe from any thread (one short lock per observation).
///
///     let decode = Histogram(bounds: Histogram.durationBounds)
///     decode.observe(seconds)
public final class Histogram: Sendable {
    private let state: Mutex<HistogramCounts>

    public init(bounds: [Double]) {
        state = Mutex(HistogramCounts(bounds: bounds))
    }

    public func observe(_ value: Double) {
        state.withLock { $0.observe(value) }
    }

    /// The counts so far.
    public var snapshot: HistogramCounts { state.withLock { $0 } }

    /// Bounds for durations in seconds, from half a millisecond to ten seconds.
    public static let durationBounds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]
}
