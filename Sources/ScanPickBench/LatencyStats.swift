/// Throughput and latency percentiles of a run.
struct LatencyStats {
    var requests: Int
    var seconds: Double
    /// Per-request latencies in milliseconds.
    var latencies: [Double]

    var perSecond: Double { Double(requests) / seconds }

    /// Both runs as one (blocks of the same measurement taken at different times).
    static func + (first: LatencyStats, second: LatencyStats) -> LatencyStats {
        LatencyStats(
            requests: first.requests + second.requests, seconds: first.seconds + second.seconds,
            latencies: first.latencies + second.latencies)
    }

    func percentile(_ p: Double) -> Double {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    var json: String {
        "{\"requests\":\(requests),\"perSecond\":\(Int(perSecond)),\"p50ms\":\(Self.rounded(percentile(0.5))),\"p99ms\":\(Self.rounded(percentile(0.99)))}"
    }

    /// `value` to three decimals, as the JSON shows it.
    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
