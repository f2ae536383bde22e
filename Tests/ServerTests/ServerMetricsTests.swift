import ConfigFile
import Digest
import Foundation
import TestSupport
import Testing
import Wire

@testable import Server

/// `GET /metrics` of a real `scanpick serve`, read by Prometheus's own parser: its numbers are the
/// requests the test made and the stations it reported, its label sets stay bounded whatever a
/// client sends, and it is open only where the config says.
@Suite struct ServerMetricsTests {
    static func scrape(_ base: URL, token: String? = nil) async throws -> PrometheusScrape {
        let reply = try await APIClient(base, token: token).get("/metrics")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        return try await PrometheusScrape.parse(reply.text)
    }

    /// The parser these tests trust is the real one: it refuses malformed text (and, by our own
    /// rule, a family without a known type).
    @Test func theParserRefusesMalformedText() async throws {
        for text in [
            "# TYPE scanpick_x gauge\nscanpick_x{a=\"1\" 2\n", "# TYPE scanpick_x gauge\nscanpick_x one\n",
            "# TYPE scanpick_x nonsense\nscanpick_x 1\n", "scanpick_x 1\n",
        ] {
            await #expect(throws: ServerProcessError.self, "\(text)") { try await PrometheusScrape.parse(text) }
        }
        #expect(
            try await PrometheusScrape.parse("# TYPE scanpick_x gauge\nscanpick_x{a=\"1\"} 2\n").value(
                "scanpick_x", ["a": "1"]) == 2)
    }

    @Test(arguments: ServerStoreKind.allCases)
    func theCountsAreTheRequestsAndStationsTheServerSaw(store: ServerStoreKind) async throws {
        let fixture = try await PickingFixture(store: store)
        let acme = fixture.acme
        #expect(try await fixture.scan(fixture.tasks[0], "036000291452", key: "m-1").status == 200)
        #expect(try await fixture.scan(fixture.tasks[0], "036000291452", key: "m-2").status == 200)
        let replay = try await fixture.scan(fixture.tasks[0], "036000291452", key: "m-1")
        #expect(replay.headers["idempotent-replayed"] == "true")
        #expect(try await fixture.scan(fixture.tasks[1], "036000291452").status == 422)  // the wrong item
        #expect(try await APIClient(fixture.server.baseURL, token: "wrong").get("/api/stations").status == 401)
        for body in [
            FleetTests.heartbeat("st-ok"), FleetTests.heartbeat("st-dead", ["dead": 2]),
            FleetTests.heartbeat("st-cam", ["camera": "missing"]),
        ] {
            #expect(try await FleetTests.send(acme, body).status == 200)
        }
        #expect(try await FleetTests.send(fixture.globex, FleetTests.heartbeat("gx-1")).status == 200)

        let scrape = try await Self.scrape(fixture.server.baseURL)
        #expect(scrape.types["scanpick_http_requests"] == "counter")
        #expect(scrape.types["scanpick_http_request_duration_seconds"] == "histogram")
        #expect(scrape.types["scanpick_stations"] == "gauge")
        let scans = ["route": "submit_scan"]
        #expect(scrape.value("scanpick_http_requests_total", scans.merging(["code": "200"]) { $1 }) == 3)
        #expect(scrape.value("scanpick_http_requests_total", scans.merging(["code": "422"]) { $1 }) == 1)
        #expect(scrape.value("scanpick_http_requests_total", ["route": "none", "code": "401"]) == 1)
        #expect(scrape.value("scanpick_http_requests_total", ["route": "heartbeat", "code": "200"]) == 4)
        #expect(scrape.value("scanpick_http_request_duration_seconds_count", scans) == 4)
        #expect(
            scrape.value("scanpick_http_request_duration_seconds_bucket", scans.merging(["le": "+Inf"]) { $1 }) == 4)
        #expect(scrape.value("scanpick_idempotent_replays_total") == 1)
        #expect(scrape.value("scanpick_http_conflicts_total") == 0)
        #expect(scrape.value("scanpick_database_errors_total") == 0)
        // The server's own count agrees: two scans counted, the replay not.
        #expect(try await fixture.picked(fixture.tasks[0]) == 2)
        // Stations by organisation and status, zeros included, as GET /api/stations says.
        #expect(scrape.value("scanpick_stations", ["org": "acme", "status": "ok"]) == 1)
        #expect(scrape.value("scanpick_stations", ["org": "acme", "status": "dead_letters"]) == 1)
        #expect(scrape.value("scanpick_stations", ["org": "acme", "status": "attention"]) == 1)
        #expect(scrape.value("scanpick_stations", ["org": "acme", "status": "stale"]) == 0)
        #expect(scrape.value("scanpick_stations", ["org": "globex", "status": "ok"]) == 1)
        let statuses = try await FleetTests.stations(acme).values.compactMap { $0["status"] as? String }
        #expect(statuses.sorted() == ["attention", "dead_letters", "ok"])
        if store == .sqlite {
            #expect(scrape.value("scanpick_database_commit_batch_size_count") ?? 0 >= 3)
        }
        // The build and the process, as every Prometheus client exports them.
        #expect(scrape.value("scanpick_build_info", ["version": ScanPickVersion.current]) == 1)
        let started = try #require(scrape.value("process_start_time_seconds"))
        #expect(started <= Date().timeIntervalSince1970 && started > Date().timeIntervalSince1970 - 600)
        #expect(scrape.value("process_resident_memory_bytes") ?? 0 > 1_000_000)
        #expect(scrape.value("process_open_fds") ?? 0 > 3)
        #expect(scrape.value("process_cpu_seconds_total") ?? 0 > 0)
        for name in scrape.names {
            #expect(name.hasPrefix("scanpick_") || name.hasPrefix("process_"), "\(name)")
        }
        for (family, type) in scrape.types where type == "counter" {
            #expect(scrape.names.contains(family + "_total"), "\(family)")
        }
    }

    /// A tenant that invents routes, statuses, station names and organisations never adds a series:
    /// the labels are fixed lists and the configured organisations.
    @Test func labelSetsStayBoundedWhateverClientsSend() async throws {
        let server = try await ServerProcess()
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        func series() async throws -> Set<String> {
            let scrape = try await Self.scrape(server.baseURL)
            return Set(scrape.samples.map { "\($0.name)\($0.labels.sorted { $0.key < $1.key })" })
        }
        _ = try await acme.get("/api/invented-0")
        _ = try await acme.send("PATCH", "/api/stations", body: nil)
        _ = try await APIClient(server.baseURL, token: "invented-0").get("/api/stations")
        _ = try await FleetTests.send(acme, FleetTests.heartbeat("invented-0"))
        _ = try await series()  // the scrape's own route appears from the next scrape on
        let before = try await series()
        for index in 1...60 {
            _ = try await acme.get("/api/invented-\(index)")
            _ = try await acme.send("PATCH", "/api/stations", body: nil)
            _ = try await APIClient(server.baseURL, token: "invented-\(index)").get("/api/stations")
            _ = try await FleetTests.send(acme, FleetTests.heartbeat("invented-\(index)"))
        }
        let after = try await series()
        #expect(after == before, "\(after.symmetricDifference(before))")
        #expect(!after.contains { $0.contains("invented") })
    }

    /// An organisation taken out of the config leaves no series behind, though its stations' rows
    /// are still in the database, and those rows never crowd out the configured organisations'.
    @Test func anOrganisationRemovedFromTheConfigLeavesNoSeries() async throws {
        let server = try await ServerProcess(extraConfig: ["maxStationsPerOrganisation": 1])
        for (org, station) in [("acme", "ac-1"), ("globex", "gx-1")] {
            let client = APIClient(server.baseURL, token: ServerProcess.tokens[org])
            #expect(try await FleetTests.send(client, FleetTests.heartbeat(station)).status == 200)
        }
        var config = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: server.configPath)))
                as? [String: Any])
        var organisations = config["organisations"] as? [String: Any] ?? [:]
        organisations["acme"] = nil
        config["organisations"] = organisations
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: server.configPath))
        try await server.restart()
        let scrape = try await Self.scrape(server.baseURL)
        #expect(!scrape.samples.contains { $0.labels["org"] == "acme" })
        #expect(scrape.value("scanpick_stations", ["org": "globex", "status": "ok"]) == 1)
    }

    /// On a listener of its own (`metrics.listen`) that other machines reach, `/metrics` wants a
    /// scraper's token, never an organisation's; the API's listener then has no `/metrics`.
    @Test func aMetricsListenerOfItsOwnWantsAScrapersToken() async throws {
        let server = try await ServerProcess(extraConfig: [
            "allowPlainHTTP": true,
            "metrics": ["listen": "0.0.0.0:0", "tokenSha256": [SHA256.hex(of: "scraper-token")]],
        ])
        let listening = { server.log.split(separator: "\n").first { $0.contains(#""event":"metrics_listening""#) } }
        #expect(await eventually { listening() != nil })
        let line = try #require(listening())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let port = try #require((object["address"] as? String)?.split(separator: ":").last.flatMap { Int($0) })
        let metrics = try #require(URL(string: "http://127.0.0.1:\(port)"))
        #expect(try await APIClient(metrics, token: nil).get("/metrics").status == 401)
        #expect(try await APIClient(metrics, token: "wrong").get("/metrics").status == 401)
        #expect(try await APIClient(metrics, token: ServerProcess.tokens["acme"]).get("/metrics").status == 401)
        let scrape = try await Self.scrape(metrics, token: "scraper-token")
        #expect(scrape.value("scanpick_stations", ["org": "acme", "status": "ok"]) == 0)
        #expect(try await APIClient(metrics, token: "scraper-token").get("/api/stations").status == 404)
        #expect(try await APIClient(server.baseURL, token: nil).get("/metrics").status == 404)
        #expect(try await APIClient(server.baseURL, token: "scraper-token").get("/metrics").status == 404)
        // The metrics listener polls on one thread: no pool, and no warning of libmicrohttpd's about one.
        #expect(!server.log.contains("thread pool"), "\(server.log)")
    }

    /// On a main listener other machines reach (0.0.0.0), `/metrics` wants a scraper's token even
    /// from this machine: the rule keys on the listener's address, never on who connects (a proxy
    /// on the same machine would otherwise open it to anyone). `metrics.allowUnauthenticated` opens
    /// it, and only it: the API still wants an organisation's token.
    @Test func onAListenerOtherMachinesReachMetricsWantAScrapersTokenUnlessAllowed() async throws {
        let guarded = try await ServerProcess(extraConfig: [
            "listen": "0.0.0.0:0", "allowPlainHTTP": true,
            "metrics": ["tokenSha256": [SHA256.hex(of: "scraper-token")]],
        ])
        #expect(guarded.log.contains(#""event":"listening","address":"0.0.0.0:"#), "\(guarded.log)")
        let local = try #require(URL(string: "http://127.0.0.1:\(guarded.port)"))
        for token in [nil, "wrong", ServerProcess.tokens["acme"]] {
            let refused = try await APIClient(local, token: token).get("/metrics")
            #expect(refused.status == 401, "\(token ?? "no token"): \(refused.text)")
            #expect(refused.errorCode == "metrics_token_required")
            #expect(!refused.text.contains("scanpick_"))
        }
        let scrape = try await Self.scrape(local, token: "scraper-token")
        #expect(scrape.value("scanpick_stations", ["org": "acme", "status": "ok"]) == 0)
        #expect(scrape.value("scanpick_http_requests_total", ["route": "none", "code": "401"]) == 3)

        let open = try await ServerProcess(extraConfig: [
            "listen": "0.0.0.0:0", "allowPlainHTTP": true, "metrics": ["allowUnauthenticated": true],
        ])
        let openLocal = try #require(URL(string: "http://127.0.0.1:\(open.port)"))
        let anyone = try await Self.scrape(openLocal)
        #expect(anyone.value("scanpick_database_errors_total") == 0)
        #expect(try await APIClient(openLocal, token: nil).get("/api/stations").status == 401)
        #expect(try await APIClient(openLocal, token: ServerProcess.tokens["acme"]).get("/api/stations").status == 200)
    }

    /// `scanpick_database_errors_total` counts what the database failed: PostgreSQL stopped under a
    /// running server makes a pick 503 and a readiness probe 503, and `/metrics` still answers
    /// then (an outage is when an operator looks), its request counters without the stations'
    /// gauges, which it cannot read; once the database is back, the gauges return.
    @Test func databaseErrorsAreCountedAndStillScrapedWhileTheDatabaseIsDown() async throws {
        // initdb and pg_ctl block for seconds: on threads of their own, never the task pool's few.
        let cluster = try await PostgresCluster.started()
        let fixture = try await PickingFixture(
            server: try await ServerProcess(store: .postgres, database: try await cluster.newDatabase()))
        let base = fixture.server.baseURL
        #expect(try await FleetTests.send(fixture.acme, FleetTests.heartbeat("st-1")).status == 200)
        #expect(try await Self.scrape(base).value("scanpick_database_errors_total") == 0)

        try await cluster.stop()
        let pick = try await fixture.pick(fixture.tasks[0], qty: 1)
        #expect(pick.status == 503 && pick.errorCode == "database_unavailable", "\(pick.text)")
        #expect(try await APIClient(base, token: nil).get("/health/ready").status == 503)
        let reply = try await APIClient(base, token: nil).get("/metrics")
        #expect(reply.status == 200, "\(reply.text)")
        let during = try await PrometheusScrape.parse(reply.text)
        // The pick, the readiness probe and this scrape's read of the stations.
        #expect(during.value("scanpick_database_errors_total") == 3, "\(reply.text)")
        #expect(during.value("scanpick_http_requests_total", ["route": "pick", "code": "503"]) == 1)
        #expect(during.value("scanpick_http_requests_total", ["route": "ready", "code": "503"]) == 1)
        #expect(during.all("scanpick_stations").isEmpty)  // unread: left out, never made up

        try await cluster.start()
        #expect(try await eventually { try await APIClient(base, token: nil).get("/health/ready").status == 200 })
        let after = try await Self.scrape(base)
        #expect(
            after.value("scanpick_database_errors_total") ?? 0 >= during.value("scanpick_database_errors_total") ?? 0)
        #expect(after.value("scanpick_stations", ["org": "acme", "status": "ok"]) == 1)
    }

    /// The config's keys for the fleet view and the metrics, with their bounds, and where a
    /// metrics listener of its own must not send its scrapers' tokens in the clear.
    @Test func fleetAndMetricsSettingsAreCheckedAtLoad() throws {
        let folder = try TemporaryDirectory()
        let (hash, acme) = (SHA256.hex(of: "scraper-token"), SHA256.hex(of: "acme-token"))
        func load(_ extra: String) throws -> ServerConfiguration {
            let path = try folder.write(
                "server.json", text: #"{"organisations": {"acme": {"tokenSha256": ["\#(acme)"]}}\#(extra)}"#)
            return try ServerConfiguration.load(path: path)
        }
        let defaults = try load("")
        #expect(defaults.backlogAlertMinutes == 10 && defaults.maxStationsPerOrganisation == 500)
        #expect(defaults.metrics.listen == nil && defaults.metricsOpenWithoutToken)
        for (extra, key) in [
            (#", "backlogAlertMinutes": 0"#, "backlogAlertMinutes"),
            (#", "backlogAlertMinutes": 10081"#, "backlogAlertMinutes"),
            (#", "maxStationsPerOrganisation": 0"#, "maxStationsPerOrganisation"),
            (#", "maxStationsPerOrganisation": 10001"#, "maxStationsPerOrganisation"),
            (#", "metrics": {"listen": "nowhere"}"#, "metrics.listen"),
            (#", "metrics": {"tokenSha256": ["ABC"]}"#, "metrics.tokenSha256"),
            (#", "metrics": {"scrapeEverything": true}"#, "metrics.scrapeEverything"),
            // An organisation's own token as the scraper's: that tenant would read every organisation's figures.
            (#", "metrics": {"tokenSha256": ["\#(acme)"]}"#, "metrics.tokenSha256"),
            // Where the API already listens: the second listener could never bind.
            (#", "listen": "127.0.0.1:9464", "metrics": {"listen": "127.0.0.1:9464"}"#, "metrics.listen"),
            (#", "listen": "0.0.0.0:9464", "metrics": {"listen": "127.0.0.1:9464"}"#, "metrics.listen"),
        ] {
            #expect(throws: ConfigError.self, "\(extra)") { try load(extra) }
            do {
                _ = try load(extra)
            } catch let error as ConfigError {
                #expect(error.key == key, "\(extra): \(error)")
            }
        }
        // Another machine's scraper over plain HTTP would send its token in the clear.
        let exposed = try load(#", "metrics": {"listen": "0.0.0.0:9464", "tokenSha256": ["\#(hash)"]}"#)
        #expect(!exposed.metricsOpenWithoutToken)
        #expect(exposed.plainHTTPRefusal?.contains("metrics.listen") == true)
        #expect(try load(#", "metrics": {"listen": "127.0.0.1:9464"}"#).metricsOpenWithoutToken)
        let open = try load(#", "metrics": {"listen": "0.0.0.0:9464", "allowUnauthenticated": true}"#)
        #expect(open.metricsOpenWithoutToken && open.plainHTTPRefusal == nil)
        // Other ports, or ports the system chooses, never clash.
        #expect(try load(#", "listen": "127.0.0.1:0", "metrics": {"listen": "127.0.0.1:0"}"#).metrics.listen != nil)
        #expect(try load(#", "listen": "127.0.0.1:8080", "metrics": {"listen": "0.0.0.0:9464"}"#).metrics.listen != nil)
    }

    /// Every route has a label of its own in the fixed list, and `none` is the last: a route added
    /// without one cannot share another's series.
    @Test func everyRouteHasItsOwnMetricName() {
        let routes: [Route] = [
            .health, .ready, .upsertOrders, .createBatch, .getBatch(id: "b"), .submitScan, .pick, .setQty,
            .createShipment, .voidShipment(id: "s"), .heartbeat, .stations, .removeStation(name: "n"), .metrics,
            .fleetPage(file: "fleet.html"), .listBatches, .closeBatch(id: "b"), .fleetSignIn, .fleetSignOut,
            .clearHelp(station: "s"), .short,
        ]
        let indexes = routes.map(\.metricIndex)
        #expect(Set(indexes).count == routes.count)
        #expect(indexes.allSatisfy { Route.metricNames.indices.contains($0) && $0 != Route.noRouteMetricIndex })
        #expect(Route.metricNames.count == routes.count + 1)
        #expect(Route.metricNames[Route.noRouteMetricIndex] == "none")
        #expect(Set(Route.metricNames).count == Route.metricNames.count)
    }
}
