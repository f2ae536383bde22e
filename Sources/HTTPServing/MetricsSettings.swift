import ConfigFile
import Digest

/// The `metrics` object of the server's and the station's configs: where `GET /metrics` is served
/// and who may read it. Without `listen` it is served on the process's main listener (the API's,
/// the page's); with it, on a listener of its own (then the main one has no `/metrics`), so a
/// central Prometheus can scrape it without reaching the API or the picker's page.
///
///     {"metrics": {"listen": "0.0.0.0:9464", "tokenSha256": ["<64 hex>"], "allowUnauthenticated": false}}
///
///     let settings = try MetricsSettings.read(from: &reader, tokenHint: "scanpick token new --org metrics")
public struct MetricsSettings: Sendable, Equatable {
    /// A listener of its own for `/metrics` (then the main listener has no `/metrics`).
    public var listen: ListenAddress?
    /// SHA-256 (lower-case hex) of each bearer token a scraper may send.
    public var tokenSha256: [String]
    /// Serve `/metrics` without a token on an address other machines reach.
    public var allowUnauthenticated: Bool

    public init(listen: ListenAddress? = nil, tokenSha256: [String] = [], allowUnauthenticated: Bool = false) {
        self.listen = listen
        self.tokenSha256 = tokenSha256
        self.allowUnauthenticated = allowUnauthenticated
    }

    /// Reads the `metrics` object of `reader` (absent: the defaults). A hash that is not 64
    /// lower-case hex digits is refused with the command that makes a token.
    public static func read(from reader: inout ConfigReader) throws(ConfigError) -> MetricsSettings {
        var settings = MetricsSettings()
        guard var metrics = try reader.object("metrics") else { return settings }
        if let text = try metrics.string("listen") {
            do {
                settings.listen = try ListenAddress(parsing: text)
            } catch {
                throw metrics.error("listen", "is not HOST:PORT (\(error.reason))")
            }
        }
        settings.tokenSha256 = try metrics.strings("tokenSha256") ?? []
        for hash in settings.tokenSha256 where !SHA256.isHex(hash) {
            throw metrics.error(
                "tokenSha256",
                "must hold 64-character lower-case hex SHA-256 hashes, not '\(hash.prefix(12))…' (make one with `scanpick token new --org metrics`)"
            )
        }
        settings.allowUnauthenticated = try metrics.bool("allowUnauthenticated", default: settings.allowUnauthenticated)
        try metrics.finish()
        return settings
    }

    /// Whether `/metrics` answers without a token: its listener (`listen`, else `main`) is
    /// loopback, or `allowUnauthenticated` is set.
    public func openWithoutToken(main: ListenAddress) -> Bool {
        allowUnauthenticated || (listen ?? main).isLoopback
    }

    /// Who may scrape, for a process whose main listener is `main`; `config` names the file in the
    /// refusal ("the station config").
    public func access(main: ListenAddress, config: String) -> MetricsAccess {
        MetricsAccess(openWithoutToken: openWithoutToken(main: main), tokenHashes: Set(tokenSha256), config: config)
    }

    /// Why the metrics listener cannot bind beside the main one, or nil: the same port (not 0, which
    /// the system chooses) on the same address or on a wildcard one (`0.0.0.0`, `::`). `key` names
    /// the main listener's key in the message (`listen`, `page.listen`).
    public static func clash(_ metrics: ListenAddress, _ main: ListenAddress, key: String = "listen") -> String? {
        let wildcards: Set<String> = ["0.0.0.0", "::"]
        guard metrics.port != 0, metrics.port == main.port,
            metrics.host == main.host || wildcards.contains(metrics.host) || wildcards.contains(main.host)
        else { return nil }
        return
            "is \(metrics), where \(key) (\(main)) already serves: leave metrics.listen out to serve /metrics there, or give it a port of its own"
    }
}
