import Metrics
import Synchronization

/// The API's own numbers for `GET /metrics`, counted as each request is answered: requests by route
/// and status, each route's duration histogram, idempotent replays, 409s (a key in flight) and
/// database errors. One short lock per request over arrays sized once: no allocation, and no label
/// a request chooses (routes and statuses are fixed lists; anything else counts as `other`).
///
///     metrics.record(route: Route.submitScan.metricIndex, status: 200, seconds: 0.0004, replayed: false)
///     metrics.write(to: &text)
final class APIMetrics: Sendable {
    /// The statuses counted by name; any other is `other`.
    static let statuses = [200, 201, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503]

    private struct Counts {
        /// Route × status slot (``statuses`` then `other`).
        var requests: [UInt64]
        var durations: [HistogramCounts]
        var replays: UInt64 = 0
        var conflicts: UInt64 = 0
        var databaseErrors: UInt64 = 0
    }

    private let counts: Mutex<Counts>

    init() {
        let routes = Route.metricNames.count
        counts = Mutex(
            Counts(
                requests: Array(repeating: 0, count: routes * (Self.statuses.count + 1)),
                durations: Array(repeating: HistogramCounts(bounds: Histogram.durationBounds), count: routes)))
    }

    /// Counts one answered request (`route` from ``Route/metricIndex``).
    func record(route: Int, status: Int, seconds: Double, replayed: Bool) {
        let slot = Self.statuses.firstIndex(of: status) ?? Self.statuses.count
        counts.withLock { counts in
            counts.requests[route * (Self.statuses.count + 1) + slot] &+= 1
            counts.durations[route].observe(seconds)
            if replayed { counts.replays &+= 1 }
            if status == 409 { counts.conflicts &+= 1 }
        }
    }

    /// Counts a request the database failed (a 5xx from the store, a failed readiness probe).
    func countDatabaseError() {
        counts.withLock { $0.databaseErrors &+= 1 }
    }

    /// The request families, in Prometheus's text format (series appear once they have counted).
    func write(to text: inout PrometheusText) {
        let counts = self.counts.withLock { $0 }
        let names = Route.metricNames
        text.family("scanpick_http_requests_total", .counter, "HTTP requests answered, by route and status.")
        for (route, name) in names.enumerated() {
            for slot in 0...Self.statuses.count {
                let count = counts.requests[route * (Self.statuses.count + 1) + slot]
                guard count > 0 else { continue }
                let code = slot < Self.statuses.count ? String(Self.statuses[slot]) : "other"
                text.sample("scanpick_http_requests_total", [("route", name), ("code", code)], value: count)
            }
        }
        text.family(
            "scanpick_http_request_duration_seconds", .histogram,
            "Time from a request's arrival at the API to its answer, by route.")
        for (route, name) in names.enumerated() where counts.durations[route].count > 0 {
            text.histogram("scanpick_http_request_duration_seconds", [("route", name)], counts.durations[route])
        }
        text.family(
            "scanpick_idempotent_replays_total", .counter,
            "Idempotent requests answered with the stored answer of their key (resends).")
        text.sample("scanpick_idempotent_replays_total", value: counts.replays)
        text.family(
            "scanpick_http_conflicts_total", .counter,
            "Requests answered 409 (request_in_progress: the same key was still being answered).")
        text.sample("scanpick_http_conflicts_total", value: counts.conflicts)
        text.family(
            "scanpick_database_errors_total", .counter,
            "Requests the database failed (5xx database_unavailable or internal_error), readiness probes and scrapes included."
        )
        text.sample("scanpick_database_errors_total", value: counts.databaseErrors)
    }
}
