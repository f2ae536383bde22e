import Capture
import ConfigFile
import Foundation
import HTTPServing
import Queue
import Scanning

/// The station's configuration, `config/station.json`:
///
///     {"station": "bench-1", "worker": "worker-003", "server": "http://127.0.0.1:8080",
///      "database": "var/station.sqlite",
///      "queue": {"backoffInitialSeconds": 2, "backoffCapSeconds": 60, "drainIntervalSeconds": 30,
///                "requestTimeoutSeconds": 10, "sentRetentionHours": 24, "stuckAfterMinutes": 10},
///      "organisations": {"acme": {"token": "...", "scanning": {"enabled": false}}}}
///
/// Each organisation's token comes from exactly one of `token`, `tokenFile` (a file holding it) or
/// `tokenEnv` (an environment variable's name). Relative paths are relative to the config file.
/// Unknown keys and bad values are errors naming the key; `worker` keeps the API's rule for a
/// `workerId` (1–200 characters, no control or bidirectional characters). A file holding a real token (the config
/// with a `token`, a `tokenFile`, `page.tokenFile`) that other users can read is refused with the
/// `chmod 600` to run; only the README's demo tokens are exempt (the repository's example config).
///
/// This file holds the values and their defaults; `StationConfiguration+Load` reads and checks the
/// file, and `StationConfiguration+Reload` says which keys a running station applies at once.
public struct StationConfiguration: Sendable, Equatable {
    /// The station's name (1–64 visible ASCII characters): sent as `X-ScanPick-Station` with every
    /// request and in its heartbeats.
    public var station: String
    /// How often the station sends a heartbeat while online (`heartbeatSeconds`, 1–3600,
    /// ``defaultHeartbeatSeconds``).
    public var heartbeatSeconds = Self.defaultHeartbeatSeconds
    public var worker: String
    public var server: URL
    public var databasePath: String
    public var queue: QueueOptions
    public var organisations: [String: Organisation]
    /// How scans are confirmed and counted (`debounce`).
    public var debounce: Debouncer.Options
    /// The camera (`camera`): device, resolution and frame rate asked for.
    public var camera: CameraSettings
    /// The station's local page and API: where it listens and who may use it (`page`).
    public var page: PageSettings
    /// Handheld scanners (`scanners`), read alongside the camera.
    public var scanners: [ScannerSettings] = []
    /// `metrics`: `GET /metrics` on the page (the default) or on a listener of its own, and who may
    /// scrape it (as the server's config has it).
    public var metrics = MetricsSettings()
    /// `tls.caFile`: the private CA that signed the server's certificate (PEM), which must be in
    /// the machine's trust store (``SystemTrust``).
    public var certificateAuthorityFile: String?
    /// The files the configuration was read from (the config and any `tokenFile`), so a running
    /// station can notice a change.
    public var sourceFiles: [String] = []
    /// `requireSignIn`: scans and the page's taps wait for a worker to sign in (badge or name);
    /// without it they carry `worker` until someone signs in.
    public var requireSignIn = Self.defaultRequireSignIn
    /// `workerBadgePattern`: a scanned code it matches is a worker's badge, which signs that worker in.
    public var workerBadgePattern: LabelPattern?
    /// `batchLabelPattern`: a scanned code it matches is a batch label, which opens that batch.
    public var batchLabelPattern: LabelPattern?
    /// `workers`: the names the page offers to sign in with (`[{"id", "name"}]`).
    public var workers: [Worker] = []
    /// `scanning.scanToSelect`: a code of another unfinished task of the batch counts for it and
    /// makes it the current pick; when false it is refused, naming where it belongs.
    public var scanToSelect = Self.defaultScanToSelect
    /// `support`: who may retry, clear and park dead letters from the page (``SupportSettings``).
    public var support = SupportSettings()

    /// How support signs in on the page: by a badge or a PIN. Without either, the page's queue is
    /// read-only (`scanpick queue` at a shell still works).
    public struct SupportSettings: Sendable, Equatable {
        /// `support.badgePattern`: a badge it matches signs support in; its first capture group (or
        /// the whole badge) is the name the station log records.
        public var badgePattern: LabelPattern?
        /// `support.pinSha256`: the SHA-256 (lower-case hex) of each PIN that signs support in.
        public var pinSha256: [String] = []

        public init() {}

        /// Whether anyone can sign in as support on the page.
        public var isConfigured: Bool { badgePattern != nil || !pinSha256.isEmpty }
    }

    /// The most PIN hashes `support.pinSha256` may list.
    public static let maxSupportPins = 100

    /// A worker the page can sign in by name.
    public struct Worker: Sendable, Equatable, Codable {
        /// The `workerId` every tap and scan carries while this worker is signed in.
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The most workers a config may list.
    public static let maxWorkers = 500

    /// One organisation the station works for.
    public struct Organisation: Sendable, Equatable {
        public var token: String
        /// Whether scanning (camera or hardware scanner) is on (default false: the camera is never opened).
        public var scanningEnabled: Bool
        /// The symbologies its scans look for (default: every one but ISBN).
        public var symbologies: Set<Symbology>
    }

    /// What the station asks of its camera.
    public struct CameraSettings: Sendable, Equatable {
        /// `camera.enabled`: false for a station with only handheld scanners (no camera is looked for).
        public var enabled = true
        public var device: String = "/dev/video0"
        public var width: Int = 1280
        public var height: Int = 720
        public var fps: Int = 30
        /// `camera.scanLineSpacing`: ZBar looks along every this many rows and columns of a frame
        /// (``ReaderOptions/scanLineSpacing``; 1 for codes too small to cross two lines).
        public var scanLineSpacing = ReaderOptions.cameraScanLineSpacing
    }

    /// A USB handheld scanner (a keyboard to Linux) read through evdev: `{"device": PATH}` with
    /// optional `terminator` (`"enter"` or `"tab"`), `maxKeyGapMilliseconds` and `groupSeparator`
    /// (the text the scanner types for GS in GS1 codes, e.g. `"~"`).
    public struct ScannerSettings: Sendable, Equatable {
        /// The input device: `/dev/input/by-id/…-event-kbd`, `/dev/scanpick/scanner-…` or `/dev/input/eventN`.
        public var device: String
        /// How its key events become codes.
        public var decoding = KeyCodeDecoder.Options()

        public init(device: String) { self.device = device }
    }

    /// The most scanners one station reads (each has its own thread).
    public static let maxScanners = 8

    /// Where the page listens and who may use it.
    public struct PageSettings: Sendable, Equatable {
        /// `page.listen` (default 127.0.0.1:8377, loopback).
        public var listen = ListenAddress(host: "127.0.0.1", port: 8377)
        /// `page.allowRemote`: serve other machines (needs `page.tokenFile`).
        public var allowRemote = false
        /// `page.allowedHosts`: host names the page answers to besides its listen address and the
        /// loopback names (what a browser on another machine puts in `Host`), lower-cased.
        public var allowedHosts: [String] = []
        /// The page's secret, from `page.tokenFile` (required with `allowRemote`): every request must
        /// bring it, as a cookie set by the one-time login link or as a bearer header.
        public var secret: String?

        public init() {}
    }

    /// `database` when the config does not say: relative to the config file's folder.
    public static let defaultDatabasePath = "var/station.sqlite"

    /// `requireSignIn` when the config does not say.
    public static let defaultRequireSignIn = false

    /// `scanning.scanToSelect` when the config does not say.
    public static let defaultScanToSelect = true

    /// `heartbeatSeconds` when the config does not say.
    public static let defaultHeartbeatSeconds = 30

    /// The keys `scanners[].terminator` may name (the default is ``KeyCodeDecoder/Options``' own).
    public static let terminatorKeys: KeyValuePairs<String, UInt16> = ["enter": KeyCode.enter, "tab": KeyCode.tab]

    /// Tokens the README documents for the demo: a config holding only these may be readable by others.
    public static let demoTokens: Set<String> = ["demo-acme-token", "demo-globex-token"]

    /// Bearer tokens by organisation, for the transport.
    public var tokens: [String: String] { organisations.mapValues(\.token) }

    /// The organisation `name`, or an error listing the configured ones.
    public func organisation(_ name: String) throws(ConfigError) -> Organisation {
        guard let organisation = organisations[name] else {
            throw ConfigError(
                file: "station config", key: "organisations.\(name)",
                problem: "is not configured; this station knows: \(organisations.keys.sorted().joined(separator: ", "))"
            )
        }
        return organisation
    }
}
