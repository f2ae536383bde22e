import Foundation

/// How the queue drains, built once from the station config's `queue` object.
public struct QueueOptions: Sendable, Equatable {
    /// The first retry's ceiling after a transient failure (default 2 s).
    public var backoffInitial: TimeInterval
    /// The most a retry ever waits (default 60 s).
    public var backoffCap: TimeInterval
    /// The periodic drain timer (default 30 s).
    public var drainInterval: TimeInterval
    /// How long one request may take before it counts as a transport failure (default 10 s).
    public var requestTimeout: TimeInterval
    /// How long sent actions stay for the diagnostics history (default 24 h).
    public var sentRetention: TimeInterval
    /// How long the server may fail the head of the line (with at least ``StuckAction/minimumTries``
    /// tries) before it is named as needing attention (default 10 min).
    public var stuckAfter: TimeInterval
    /// The most bytes of one answer the station reads from the server (default 16 MiB): past it the
    /// answer is refused, so a server that is not ours, or not well, cannot fill the station's memory.
    public var maxAnswerBytes: Int

    public init(
        backoffInitial: TimeInterval = 2, backoffCap: TimeInterval = 60, drainInterval: TimeInterval = 30,
        requestTimeout: TimeInterval = 10, sentRetention: TimeInterval = 24 * 3600, stuckAfter: TimeInterval = 600,
        maxAnswerBytes: Int = 16 << 20
    ) {
        self.maxAnswerBytes = maxAnswerBytes
        self.backoffInitial = backoffInitial
        self.backoffCap = backoffCap
        self.drainInterval = drainInterval
        self.requestTimeout = requestTimeout
        self.sentRetention = sentRetention
        self.stuckAfter = stuckAfter
    }
}

/// Exponential backoff with full jitter: after the n-th failed try, wait a uniformly random time
/// between 0 and min(cap, initial × 2^(n−1)) — so fifty stations leaving the dead spot together do
/// not retry in step — but never less than the server's `Retry-After`.
///
///     BackoffPolicy(initial: 2, cap: 60).delay(afterTries: 3, retryAfter: nil, unitRandom: 1)  // 8
public struct BackoffPolicy: Sendable, Equatable {
    public var initial: TimeInterval
    public var cap: TimeInterval

    public init(initial: TimeInterval, cap: TimeInterval) {
        self.initial = initial
        self.cap = cap
    }

    /// The ceiling of the wait after `tries` failed tries.
    public func ceiling(afterTries tries: Int) -> TimeInterval {
        min(cap, initial * pow(2, Double(max(0, min(tries, 60) - 1))))
    }

    /// The wait after `tries` failed tries, with `unitRandom` in 0...1 choosing the jitter.
    public func delay(afterTries tries: Int, retryAfter: TimeInterval?, unitRandom: Double) -> TimeInterval {
        max(ceiling(afterTries: tries) * min(1, max(0, unitRandom)), retryAfter ?? 0)
    }
}
