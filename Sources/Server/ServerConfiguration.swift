import ConfigFile
import Digest
import Foundation
import HTTPServing
import Wire

/// What `scanpick serve` needs, from `config/server.json` and command-line overrides:
///
///     {"listen": "127.0.0.1:8080", "database": "var/server.sqlite",
///      "organisations": {"acme": {"tokenSha256": ["<64 hex>", ...]}},
///      "idempotencyRetentionDays": 30, "idempotencyMarginHours": 24, "databasePoolSize": 8,
///      "http": {"perAddressConnectionLimit": 64, "headerTimeoutSeconds": 10, ...},
///      "backlogAlertMinutes": 10, "maxStationsPerOrganisation": 500, "batches": {"autoCloseMinutes": 10},
///      "drainSeconds": 2,
///      "metrics": {"listen": "127.0.0.1:9464", "tokenSha256": ["<64 hex>"], "allowUnauthenticated": false}}
///
/// Tokens are stored as SHA-256 hashes (lower-case hex), so a leaked config leaks no token. A relative
/// SQLite `database` is relative to the config file's folder; a `postgres://` URL or libpq connection
/// string selects PostgreSQL.
public struct ServerConfiguration: Sendable, Equatable {
    /// Where the API listens (``Defaults/listen``).
    public var listen: ListenAddress
    /// The SQLite file or PostgreSQL connection (``Defaults/database``).
    public var database: ServerDatabase
    /// PostgreSQL only: how many connections one server process keeps at most (``Defaults/databasePoolSize``).
    public var databasePoolSize: Int
    /// Organisation name → the SHA-256 hex of each bearer token that acts for it.
    public var organisations: [String: [String]]
    /// How long a stored idempotency key replays its first answer, in days (``Defaults/idempotencyRetentionDays``).
    public var idempotencyRetentionDays: Int
    /// How much earlier than the retention window a request with an unknown key is refused as too
    /// old to deduplicate, in hours (``Defaults/idempotencyMarginHours``: room for stations' clocks; see
    /// ``IdempotencyHorizon``).
    public var idempotencyMarginHours: Int
    /// What one HTTP client may hold: connections, header and body deadlines, workers (the `http`
    /// object; every key of ``HTTPServerLimits/settings``).
    public var http: HTTPServerLimits
    /// HTTPS: the certificate chain and private key files (PEM), or nil for plain HTTP.
    public var tls: TLSFiles?
    /// Serve tokens in plain HTTP on an address other machines reach: off unless set deliberately.
    public var allowPlainHTTP: Bool
    /// How old a station's oldest unsent action may be before the fleet view says `backlog`
    /// (``Defaults/backlogAlertMinutes``).
    public var backlogAlertMinutes: Double
    /// How many stations one organisation may have reporting heartbeats
    /// (``Defaults/maxStationsPerOrganisation``): what a token holder can make the server keep is bounded.
    public var maxStationsPerOrganisation: Int
    /// Where `GET /metrics` is served and who may read it (the `metrics` object).
    public var metrics: MetricsSettings
    /// How long after its last change a complete batch (every task picked or short) is closed by
    /// the server, in minutes (`batches.autoCloseMinutes`, ``Defaults/batchAutoCloseMinutes``).
    public var batchAutoCloseMinutes: Double
    /// How long a stopping server answers `GET /health/ready` 503 while still serving, before it stops
    /// listening, in seconds (`drainSeconds`, ``Defaults/drainSeconds``): time for a load balancer to
    /// take it out.
    public var drainSeconds: Double

    /// `GET /metrics`: on the main listener, or on `listen` of its own; without a token only where the
    /// listener is loopback or `allowUnauthenticated` says so, else with a bearer token whose
    /// SHA-256 is in `tokenSha256` (the scrapers', apart from the organisations': the metrics span
    /// every organisation). The station's config has the same object.
    public typealias MetricsSettings = HTTPServing.MetricsSettings

    /// Where a server's TLS certificate chain and key are (absolute, or relative to the config file).
    public struct TLSFiles: Sendable, Equatable {
        public var certificate: String
        public var key: String
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// Each default of `config/server.json`, written once: the initialiser's defaults and ``load(path:)``
    /// both use these (and the README's configuration table is tested against them).
    public enum Defaults {
        public static let listen = ListenAddress(host: "127.0.0.1", port: 8080)
        /// Relative to the config file's folder.
        public static let database = "var/server.sqlite"
        public static let idempotencyRetentionDays = 30
        /// At most the retention window less one hour, when the window is shorter than this allows.
        public static let idempotencyMarginHours = 24
        public static let databasePoolSize = 8
        public static let allowPlainHTTP = false
        public static let backlogAlertMinutes: Double = 10
        public static let maxStationsPerOrganisation = 500
        public static let batchAutoCloseMinutes: Double = 10
        /// HAProxy's check of docs/scale-out.md takes a server out within 1.5 s (every 500 ms, two failures).
        public static let drainSeconds: Double = 2
    }

    /// What `batches.autoCloseMinutes` may be: from 0.01 (under a second) to a week.
    public static let batchAutoCloseRange = 0.01...10_080.0

    public init(
        listen: ListenAddress, database: ServerDatabase, organisations: [String: [String]],
        idempotencyRetentionDays: Int = Defaults.idempotencyRetentionDays,
        idempotencyMarginHours: Int = Defaults.idempotencyMarginHours,
        databasePoolSize: Int = Defaults.databasePoolSize, http: HTTPServerLimits = HTTPServerLimits(),
        tls: TLSFiles? = nil, allowPlainHTTP: Bool = Defaults.allowPlainHTTP,
        backlogAlertMinutes: Double = Defaults.backlogAlertMinutes,
        maxStationsPerOrganisation: Int = Defaults.maxStationsPerOrganisation,
        metrics: MetricsSettings = MetricsSettings(),
        batchAutoCloseMinutes: Double = Defaults.batchAutoCloseMinutes, drainSeconds: Double = Defaults.drainSeconds
    ) {
        self.listen = listen
        self.drainSeconds = drainSeconds
        self.batchAutoCloseMinutes = batchAutoCloseMinutes
        self.backlogAlertMinutes = backlogAlertMinutes
        self.maxStationsPerOrganisation = maxStationsPerOrganisation
        self.metrics = metrics
        self.http = http
        self.tls = tls
        self.allowPlainHTTP = allowPlainHTTP
        self.database = database
        self.databasePoolSize = databasePoolSize
        self.organisations = organisations
        self.idempotencyRetentionDays = idempotencyRetentionDays
        self.idempotencyMarginHours = idempotencyMarginHours
    }

    /// Reads and checks the configuration file at `path`.
    public static func load(path: String) throws(ConfigError) -> ServerConfiguration {
        var reader = try ConfigReader(contentsOf: path)
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        let listenText = try reader.string("listen", default: Defaults.listen.description)
        let listen: ListenAddress
        do {
            listen = try ListenAddress(parsing: listenText)
        } catch {
            throw reader.error("listen", "is not HOST:PORT (\(error.reason))")
        }
        let database = try reader.string("database", default: Defaults.database)
        if case .sqlite(let file) = ServerDatabase(database, relativeTo: base),
            let problem = DatabaseFolder.problem(forDatabase: file, configFolder: base.path, written: database)
        {
            throw reader.error("database", problem)
        }
        let retention = try reader.integer(
            "idempotencyRetentionDays", default: Defaults.idempotencyRetentionDays, in: 1...3650)
        let margin = try reader.integer(
            "idempotencyMarginHours", default: min(Defaults.idempotencyMarginHours, retention * 24 - 1), in: 0...87_599)
        guard margin < retention * 24 else {
            throw reader.error(
                "idempotencyMarginHours", "must be less than idempotencyRetentionDays × 24 (\(retention * 24))")
        }
        let poolSize = try reader.integer("databasePoolSize", default: Defaults.databasePoolSize, in: 1...200)
        guard var organisationsReader = try reader.object("organisations") else {
            throw reader.error("organisations", "is required: a map from organisation name to {\"tokenSha256\": [...]}")
        }
        var organisations: [String: [String]] = [:]
        var holders: [String: String] = [:]  // token hash → the organisation it acts for
        for name in organisationsReader.keys.sorted() {
            if let problem = FieldRules.organisationProblem(name) { throw reader.error("organisations", problem) }
            guard var organisation = try organisationsReader.object(name) else { continue }
            let hashes = try organisation.strings("tokenSha256") ?? []
            for hash in hashes where !SHA256.isHex(hash) {
                throw organisation.error(
                    "tokenSha256",
                    "must hold 64-character lower-case hex SHA-256 hashes, not '\(hash.prefix(12))…' (make one with `scanpick token new --org \(name)`)"
                )
            }
            // A token acts for one organisation: shared, it would let one write into the other's data.
            for hash in hashes {
                if let holder = holders[hash], holder != name {
                    throw organisation.error(
                        "tokenSha256",
                        "holds '\(hash.prefix(12))…', which organisations.\(holder) holds too: a token acts for one organisation (make one for each with `scanpick token new --org NAME`)"
                    )
                }
                holders[hash] = name
            }
            try organisation.finish()
            organisations[name] = hashes
        }
        try organisationsReader.finish()
        var http = HTTPServerLimits()
        if var limits = try reader.object("http") {
            for setting in HTTPServerLimits.settings {
                http[keyPath: setting.keyPath] = try limits.integer(
                    setting.name, default: http[keyPath: setting.keyPath], in: setting.range)
            }
            try limits.finish()
        }
        var tls: TLSFiles?
        if var files = try reader.object("tls") {
            func resolved(_ key: String) throws(ConfigError) -> String {
                let file = try files.requiredString(key)
                return file.hasPrefix("/") ? file : base.appendingPathComponent(file).path
            }
            tls = TLSFiles(certificate: try resolved("certificate"), key: try resolved("key"))
            try files.finish()
        }
        let allowPlainHTTP = try reader.bool("allowPlainHTTP", default: Defaults.allowPlainHTTP)
        let backlogAlertMinutes = try reader.number(
            "backlogAlertMinutes", default: Defaults.backlogAlertMinutes, in: 0.01...10_080)
        let maxStations = try reader.integer(
            "maxStationsPerOrganisation", default: Defaults.maxStationsPerOrganisation, in: 1...10_000)
        var batchAutoCloseMinutes = Defaults.batchAutoCloseMinutes
        if var batches = try reader.object("batches") {
            batchAutoCloseMinutes = try batches.number(
                "autoCloseMinutes", default: Defaults.batchAutoCloseMinutes, in: Self.batchAutoCloseRange)
            try batches.finish()
        }
        let drainSeconds = try reader.number("drainSeconds", default: Defaults.drainSeconds, in: 0...20)
        let metrics = try MetricsSettings.read(from: &reader)
        if let metricsListen = metrics.listen, let clash = Self.clash(metricsListen, listen) {
            throw reader.error("metrics.listen", clash)
        }
        // A scraper's token reads every organisation's figures; one an organisation holds too would
        // give that tenant all of them.
        if let shared = metrics.tokenSha256.first(where: { holders[$0] != nil }), let holder = holders[shared] {
            throw reader.error(
                "metrics.tokenSha256",
                "holds '\(shared.prefix(12))…', which organisations.\(holder) holds too: a scraper's token must be its own (make one with `scanpick token new --org metrics`)"
            )
        }
        try reader.finish()
        return ServerConfiguration(
            listen: listen, database: ServerDatabase(database, relativeTo: base), organisations: organisations,
            idempotencyRetentionDays: retention, idempotencyMarginHours: margin, databasePoolSize: poolSize, http: http,
            tls: tls, allowPlainHTTP: allowPlainHTTP, backlogAlertMinutes: backlogAlertMinutes,
            maxStationsPerOrganisation: maxStations, metrics: metrics, batchAutoCloseMinutes: batchAutoCloseMinutes,
            drainSeconds: drainSeconds)
    }

    /// Why the metrics listener cannot bind beside the API's, or nil (``MetricsSettings/clash(_:_:key:)``).
    public static func clash(_ metrics: ListenAddress, _ api: ListenAddress) -> String? {
        MetricsSettings.clash(metrics, api)
    }

    /// Whether `/metrics` answers without a token: its listener (`metrics.listen`, else `listen`) is
    /// loopback, or `metrics.allowUnauthenticated` is set.
    public var metricsOpenWithoutToken: Bool {
        metrics.openWithoutToken(main: listen)
    }

    /// Why serving as configured would send bearer tokens over the network in the clear, or nil:
    /// plain HTTP on an address other machines reach, without `allowPlainHTTP`.
    public var plainHTTPRefusal: String? {
        if let metricsListen = metrics.listen, tls == nil, !allowPlainHTTP, !metricsListen.isLoopback,
            !metrics.tokenSha256.isEmpty
        {
            return
                "metrics.listen \(metricsListen) in plain HTTP would send the scrapers' bearer tokens over the network in the clear: set \"tls\", or \"allowPlainHTTP\": true to do it deliberately"
        }
        guard tls == nil, !allowPlainHTTP, !listen.isLoopback else { return nil }
        return
            "listening on \(listen) in plain HTTP would send the organisations' bearer tokens over the network in the clear: set \"tls\": {\"certificate\": FILE, \"key\": FILE}, or \"allowPlainHTTP\": true to do it deliberately (a trusted network, or TLS ended in front of the server)"
    }
}
