// swift-tools-version:6.0
// ScanPick Station: camera scanning and a durable action queue for warehouse pick stations.
//
// Floors, bottom up (a target only imports targets on a lower floor, or on its own floor where an
// arrow says so):
//   C shims          CZBar, CZXing, CPNG, CTurboJPEG, CSQLite, CPostgres, CMicroHTTPD, CMicroHTTPDErrors,
//                    CCrypto, CNetlink, CV4L2, CEvdev, CThreadName, CSystemd, CBuildVersion
//   foundations      ArgumentParsing, Digest, ConfigFile, Waking → LineLog → Logging → ServiceManager → Lifecycle,
//                    Timestamps, JSONText, GS1 → Wire, Metrics
//   storage, serving Storage → SQLiteStorage, PostgresStorage; HTTPServing; Imaging → Scanning
//   parts            BatchDecoding, Capture, Queue → ScanPickClient, Server, Fleet
//   the station      Station
//   the command line scanpick (and scanpick-bench, the benchmarks' load generator)
import PackageDescription

let package = Package(
    name: "ScanPick",
    products: [
        .executable(name: "scanpick", targets: ["scanpick"])
    ],
    targets: [
        // C libraries from Debian, wrapped once each.
        .systemLibrary(
            name: "CZBar", path: "Sources/CShims/CZBar", pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]),
        // zxing-cpp 1.4 (libzxing-dev, C++) behind one C function: the second barcode engine.
        .target(name: "CZXing", path: "Sources/CShims/CZXing", linkerSettings: [.linkedLibrary("ZXing")]),
        .systemLibrary(
            name: "CPNG", path: "Sources/CShims/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CShims/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CShims/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        // libmicrohttpd's own refusals (400, 414, 431, 505 …) answered in JSON instead of its HTML.
        .target(
            name: "CMicroHTTPDErrors", dependencies: ["CMicroHTTPD"], path: "Sources/CShims/CMicroHTTPDErrors"),
        .systemLibrary(
            name: "CPostgres", path: "Sources/CShims/CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CShims/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // pthread_setname_np (a GNU extension Swift's Glibc module hides): threads named for top and perf.
        .target(name: "CThreadName", path: "Sources/CShims/CThreadName"),
        // The package version scripts/package-deb bakes in (a generated header; none in a checkout).
        .target(name: "CBuildVersion", path: "Sources/CShims/CBuildVersion"),
        // Linux rtnetlink (kernel headers only): a C target, so its module reaches every dependent.
        .target(name: "CNetlink", path: "Sources/CShims/CNetlink"),
        // libv4l2 (libv4l-dev): its variadic calls and ioctl macros wrapped in plain C functions.
        .target(name: "CV4L2", path: "Sources/CShims/CV4L2", linkerSettings: [.linkedLibrary("v4l2")]),
        .systemLibrary(
            name: "CEvdev", path: "Sources/CShims/CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(
            name: "CSystemd", path: "Sources/CShims/CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CShims/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),

        // A declarative command-line parser that generates its own help.
        .target(name: "ArgumentParsing"),
        // SHA-256 (OpenSSL) for token hashes and request fingerprints.
        .target(name: "Digest", dependencies: ["CCrypto"]),
        // The one wake-up hand-off: a loop (thread or task) sleeps until its turn or a ring.
        .target(name: "Waking"),
        // Log lines written by a thread of their own, so no caller waits for the log's reader.
        .target(name: "LineLog", dependencies: ["CThreadName", "Waking", "Timestamps"]),
        // One JSON line per event: the `Logger` value (level, metadata) and its one writer.
        .target(name: "Logging", dependencies: ["LineLog", "JSONText"]),
        // sd_notify: ready, stopping and watchdog pings to systemd.
        .target(name: "ServiceManager", dependencies: ["CSystemd", "Logging"]),
        // How a process's parts start, stop and reload: services, their group, the signals, the
        // blocking executor and the wake-up loops wait on.
        .target(name: "Lifecycle", dependencies: ["ServiceManager", "Logging", "CThreadName", "Waking"]),
        // Strict reading of JSON configuration files (unknown keys are errors).
        .target(name: "ConfigFile"),
        // The one form of a point in time on the wire, in the databases and in logs (ISO 8601, UTC, ms).
        .target(name: "Timestamps"),
        // Text from outside (file names, what a server sent) made safe to print on a terminal.
        .target(name: "TerminalText"),
        // GS1 numbering rules: which UPC, EAN and GTIN-14 readings name the same item, check digits,
        // element strings (AIs, lots, dates, counts) and what a scan counts for on an order line.
        .target(name: "GS1"),
        // JSON objects written by hand with their keys in order (log lines, `--json`, hot responses).
        .target(name: "JSONText", dependencies: ["Timestamps"]),
        // Codable types shared by the API server and the station: the HTTP contract and its field rules.
        .target(name: "Wire", dependencies: ["GS1", "JSONText", "Timestamps", "CBuildVersion"]),
        // Counters, histograms and Prometheus's text format, for the server's and the station's `/metrics`.
        .target(name: "Metrics"),
        // What every engine shares: `SQLConnection`, rows and values, versioned migrations, `StorageError`.
        .target(name: "Storage", dependencies: ["Timestamps"]),
        // SQLite: one connection, cached statements, transactions, group commit.
        .target(name: "SQLiteStorage", dependencies: ["CSQLite", "Storage", "CThreadName", "Metrics", "Waking"]),
        // PostgreSQL (libpq): pooled connections running the same `SQLConnection` statements as SQLite.
        .target(name: "PostgresStorage", dependencies: ["CPostgres", "Storage"]),
        // HTTP/1.1 serving on libmicrohttpd.
        .target(
            name: "HTTPServing",
            dependencies: [
                "CMicroHTTPD", "CMicroHTTPDErrors", "CThreadName", "JSONText", "Logging", "Lifecycle", "Digest",
                "ConfigFile",
            ]),

        // 8-bit grey images from PNG, JPEG and PNM files.
        .target(name: "Imaging", dependencies: ["CPNG", "CTurboJPEG"]),
        // Barcodes from grey images: the ZBar and zxing-cpp readers, symbologies, debouncing.
        .target(name: "Scanning", dependencies: ["Imaging", "CZBar", "CZXing"]),
        // `scanpick decode`: walking inputs, parallel ordered decoding, reports, manifests.
        .target(name: "BatchDecoding", dependencies: ["Imaging", "Scanning", "GS1", "JSONText", "TerminalText"]),

        // Input devices: frames from a V4L2 camera or recorded images, codes from handheld scanners.
        .target(name: "Capture", dependencies: ["Imaging", "CV4L2", "CEvdev", "CThreadName", "Logging", "Waking"]),
        // The station's durable action queue: SQLite outbox, drainer, backoff, network monitor.
        .target(
            name: "Queue",
            dependencies: [
                "Storage", "SQLiteStorage", "Wire", "JSONText", "Timestamps", "CNetlink", "Lifecycle", "Logging",
                "Waking",
            ]),
        // The ScanPick API as the station speaks it over HTTP (URLSession): actions, batches,
        // heartbeats, probes; the queue and the station see only Queue's `ScanPickAPIClient`.
        .target(name: "ScanPickClient", dependencies: ["Queue", "Wire", "Timestamps"]),
        // The station: its configuration, pick-list cache, scan validation, scan loop and page.
        .target(
            name: "Station",
            dependencies: [
                "Queue", "Wire", "JSONText", "Timestamps", "GS1", "ConfigFile", "Storage",
                "SQLiteStorage", "Capture",
                "Scanning", "TerminalText", "Digest",
                "Imaging", "HTTPServing", "ServiceManager", "Metrics", "Lifecycle", "Logging", "Waking",
            ],
            resources: [.copy("Page")]),
        // The reference ScanPick API: auth, routes, idempotency, orders, batches, shipments.
        .target(
            name: "Server",
            dependencies: [
                "Wire", "JSONText", "Timestamps", "GS1", "Storage", "SQLiteStorage", "PostgresStorage", "HTTPServing",
                "Digest",
                "ConfigFile", "Metrics", "Logging", "Lifecycle", "ServiceManager",
            ],
            resources: [.copy("FleetPage")]),
        // `scanpick fleet`: the organisation's stations from `GET /api/stations`, as a table.
        .target(name: "Fleet", dependencies: ["Wire", "Timestamps", "TerminalText"]),

        .executableTarget(
            name: "scanpick",
            dependencies: [
                "ArgumentParsing", "Imaging", "Scanning", "BatchDecoding", "Server", "HTTPServing", "Digest",
                "ConfigFile", "Queue", "Station", "Wire", "JSONText", "Timestamps", "Capture", "LineLog",
                "ServiceManager", "Fleet", "TerminalText", "Logging", "Lifecycle", "SQLiteStorage", "ScanPickClient",
            ]),

        // Load generators for scripts/bench-* (not shipped; no product depends on it).
        .executableTarget(
            name: "scanpick-bench",
            dependencies: [
                "CSQLite", "CEvdev", "Queue", "ScanPickClient", "Imaging", "Scanning", "Capture", "Station", "Wire",
                "Timestamps",
            ],
            path: "Sources/ScanPickBench"),

        // Helpers shared by the test targets (temp folders, the built binary, sample images).
        .target(
            name: "TestSupport", dependencies: ["Digest", "HTTPServing", "PostgresStorage", "Queue", "Wire"],
            path: "Tests/TestSupport"),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport"]),
        .testTarget(
            name: "ScanningTests", dependencies: ["Scanning", "Imaging", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "GS1Tests", dependencies: ["GS1"]),
        .testTarget(name: "WireTests", dependencies: ["Wire"]),
        .testTarget(name: "JSONTextTests", dependencies: ["JSONText"]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(name: "TimestampsTests", dependencies: ["Timestamps"]),
        .testTarget(name: "TerminalTextTests", dependencies: ["TerminalText"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet", "Wire"]),
        .testTarget(
            name: "BatchDecodingTests",
            dependencies: ["BatchDecoding", "Scanning", "Imaging", "TestSupport"]),
        .testTarget(
            name: "ScanPickCLITests",
            dependencies: ["scanpick", "TestSupport", "Queue", "Station", "Wire", "SQLiteStorage", "Digest"]),
        .testTarget(
            name: "QueueTests",
            dependencies: [
                "Queue", "ScanPickClient", "Station", "Storage", "SQLiteStorage", "Wire", "HTTPServing", "TestSupport",
                "scanpick", "Lifecycle", "Logging",
            ]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "CV4L2", "Imaging", "TestSupport", "scanpick"]),
        .testTarget(
            name: "StationTests",
            dependencies: [
                "Station", "Queue", "ScanPickClient", "Capture", "Scanning", "Wire", "ConfigFile", "SQLiteStorage",
                "Timestamps", "HTTPServing", "TestSupport", "Digest", "Imaging", "Lifecycle", "Logging",
                "scanpick",
            ]),
        .testTarget(name: "StorageTests", dependencies: ["Storage"]),
        .testTarget(name: "SQLiteStorageTests", dependencies: ["SQLiteStorage", "Storage", "TestSupport"]),
        .testTarget(name: "HTTPServingTests", dependencies: ["HTTPServing", "TestSupport"]),
        .testTarget(name: "WakingTests", dependencies: ["Waking"]),
        .testTarget(name: "LineLogTests", dependencies: ["LineLog", "TestSupport"]),
        .testTarget(name: "PostgresStorageTests", dependencies: ["PostgresStorage", "Storage", "TestSupport"]),
        .testTarget(name: "ConfigFileTests", dependencies: ["ConfigFile"]),
        .testTarget(name: "ServiceManagerTests", dependencies: ["ServiceManager", "Logging"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging", "JSONText"]),
        .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle", "Logging", "ServiceManager"]),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "Wire", "GS1", "Timestamps", "Storage", "SQLiteStorage", "PostgresStorage", "HTTPServing",
                "Digest", "TestSupport", "scanpick", "Logging",
            ]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
