import HTTPServing
import Logging
import Wire

/// Accounting for each request: its metrics and its one log line, and the log line of a failure of
/// the server's own.
extension ScanPickAPI {
    /// Counts the request in the metrics, logs its line and returns its response.
    func finish(
        _ request: HTTPRequest, _ response: HTTPResponse, organisation: String?, route: Route?,
        since start: ContinuousClock.Instant
    ) -> HTTPResponse {
        account(request, response, organisation: organisation, route: route, since: start)()
        return response
    }

    /// Counts the request in the metrics now (a client that has its answer finds it counted) and
    /// returns the writing of its log line, to run now or once the answer has gone. The time is
    /// taken now, and the line keeps the request's head, not its body.
    func account(
        _ request: HTTPRequest, _ response: HTTPResponse, organisation: String?, route: Route?,
        since start: ContinuousClock.Instant
    ) -> @Sendable () -> Void {
        let elapsed = ContinuousClock.now - start
        let replayed = response.headers.contains(where: { $0.0 == "Idempotent-Replayed" })
        metrics.record(
            route: route?.metricIndex ?? Route.noRouteMetricIndex, status: response.status,
            seconds: Self.milliseconds(elapsed) / 1000, replayed: replayed)
        var withoutBody = request
        withoutBody.body = []
        let head = withoutBody
        return {
            self.logRequest(head, response, organisation: organisation, elapsed: elapsed, replayed: replayed)
        }
    }

    /// One line per request: time, level (`error` for a 5xx, the server's fault), method, path,
    /// status, milliseconds, organisation, the station that sent it (its checked
    /// `X-ScanPick-Station`). Never a token.
    func logRequest(
        _ request: HTTPRequest, _ response: HTTPResponse, organisation: String?, elapsed: Duration, replayed: Bool
    ) {
        logger.log(response.status >= 500 ? .error : .info, event: nil) { line in
            line.add("method", string: request.method)
            line.add("path", string: request.path)
            line.add("status", number: response.status)
            line.add("ms", milliseconds: Self.milliseconds(elapsed))
            if let organisation { line.add("org", string: organisation) }
            if let station = request.header(StationIdentity.header), StationIdentity.isValid(station) {
                line.add("station", string: station)
            }
            if replayed { line.add("replayed", bool: true) }
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
    }

    /// A failure of the server's own (a 5xx): what failed and where.
    func logInternalError(_ request: HTTPRequest, _ error: any Error) {
        logger.error("internal_error", ["path": .string(request.path), "error": .error(error)])
    }
}
