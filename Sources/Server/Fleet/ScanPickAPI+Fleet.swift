import Foundation
import HTTPServing
import Metrics
import Storage
import Timestamps
import Wire

/// Heartbeats, the fleet view and the metrics' text: the API's view of the stations.
extension ScanPickAPI {
    /// `POST /api/stations/heartbeat`: checks the heartbeat (its size was checked with the head) and
    /// replaces the station's last one. The server's clock stamps it; the station's clock
    /// (`X-ScanPick-Clock`) is kept as an offset, so a station whose clock is wrong is judged right.
    func recordHeartbeat(_ request: HTTPRequest, org: String) throws -> HTTPResponse {
        var heartbeat = try JSONCoding.decodeValid(StationHeartbeat.self, from: request.body)
        if let named = request.header(StationIdentity.header), named != heartbeat.station {
            throw APIError.stationMismatch(header: named, body: heartbeat.station)
        }
        // Kept in the one form (a leap second as the second before it, any zone as Z), so the fleet
        // view hands on times every reader parses (`help.since` names a call: kept as sent).
        heartbeat.oldestPendingAt = heartbeat.oldestPendingAt.flatMap(Timestamp.date).map { Timestamp.iso8601($0) }
        heartbeat.lastSyncAt = heartbeat.lastSyncAt.flatMap(Timestamp.date).map { Timestamp.iso8601($0) }
        heartbeat.lastActionAt = heartbeat.lastActionAt.flatMap(Timestamp.date).map { Timestamp.iso8601($0) }
        let clock = request.header(IdempotencyHorizon.clockHeader)
        let stationClock = clock.flatMap(Timestamp.date)
        if clock != nil, stationClock == nil {
            throw APIError.badRequest("the X-ScanPick-Clock header must be an ISO 8601 time")
        }
        let now = Date()
        let dialect = store.dialect
        let limit = maxStationsPerOrganisation
        let recorded = try write(request.path) { db in
            try StationRegistry(db: db, dialect: dialect, org: org).record(
                heartbeat, receivedAt: now, clockOffset: stationClock.map { $0.timeIntervalSince(now) }, limit: limit)
        }
        guard let recorded else { throw APIError.tooManyStations(org, limit: limit) }
        refusedTokens.forget(heartbeat.station)  // its token works
        return .json(
            200,
            JSONCoding.encode(HeartbeatAnswer(receivedAt: Timestamp.iso8601(now), helpCleared: recorded.helpCleared)))
    }

    /// `POST /api/stations/{name}/help/clear` `{"since"}`: the shift lead has seen to the station's
    /// call for help made at `since` (from the fleet page, signed in, or with the token). 200
    /// `{"cleared": true}` when that call is cleared (or already was), `false` when the station no
    /// longer makes it (the picker cancelled, or called again since: that newer call stays); 404
    /// when the station has not reported.
    func clearHelp(_ request: HTTPRequest, station: String, org: String) throws -> HTTPResponse {
        guard StationIdentity.isValid(station) else { throw APIError.invalidStation }
        let body = try JSONCoding.decodeValid(ClearHelpRequest.self, from: request.body)
        let dialect = store.dialect
        let cleared = try write(request.path) { db in
            try StationRegistry(db: db, dialect: dialect, org: org).clearHelp(station, since: body.since)
        }
        guard let cleared else {
            throw APIError(status: 404, code: "not_found", message: "station \(station) has not reported here")
        }
        return .json(200, Array((cleared ? #"{"cleared":true}"# : #"{"cleared":false}"#).utf8))
    }

    /// `GET /metrics`: the request counters, SQLite's commit sizes, and each organisation's stations
    /// by status (every status of every configured organisation, zeros included). It answers while
    /// the database is down too (an outage is when an operator looks): the failed read is counted
    /// as a database error in this very scrape, and the stations' gauges are left out, never made up.
    func metricsResponse() -> HTTPResponse {
        let now = Date()
        // The configured organisations' stations only: rows an organisation left behind when it
        // was removed from the config are neither counted nor read.
        let (dialect, organisations) = (store.dialect, organisations)
        let entries: [StationRegistry.Entry]?
        do {
            entries = try store.read { db in
                try organisations.flatMap { org in try StationRegistry(db: db, dialect: dialect, org: org).stations() }
            }
        } catch {
            logInternalError(HTTPRequest(method: "GET", path: "/metrics"), error)
            metrics.countDatabaseError()
            entries = nil
        }
        var text = PrometheusText()
        metrics.write(to: &text)
        ProcessMetrics.write(to: &text, version: ScanPickVersion.current)
        if let rounds = store.commitRoundSizes {
            text.family(
                "scanpick_database_commit_batch_size", .histogram,
                "Writes committed together in one SQLite group commit (one fsync).")
            text.histogram("scanpick_database_commit_batch_size", [], rounds)
        }
        if let entries {
            var byStatus: [String: [String: Int]] = [:]
            for entry in entries {
                let status = fleetStatus.problems(entry, now: now).first ?? "ok"
                byStatus[entry.org, default: [:]][status, default: 0] += 1
            }
            text.family(
                "scanpick_stations", .gauge,
                "Stations that have reported heartbeats, by organisation and status (the worst that applies).")
            for org in organisations {
                for status in FleetStation.statuses {
                    text.sample(
                        "scanpick_stations", [("org", org), ("status", status)], value: byStatus[org]?[status] ?? 0)
                }
            }
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", PrometheusText.contentType)], body: text.bytes)
    }
}
