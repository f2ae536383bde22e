import Foundation
import TestSupport

/// A real server with a batch (A1 UPC-A ×3, B3 EAN-13 ×2, C2 EAN-8 ×1, and Z9 × `bulkQty` when
/// asked for), and a station whose config enables scanning for acme and has opened that batch.
struct StationFixture {
    let server: ServerProcess
    let acme: APIClient
    let scenario: PickingScenario
    let folder: TemporaryDirectory
    let config: String
    /// The station config as written (``rewriteConfig(_:)`` changes it).
    let settings: [String: Any]
    /// In front of the server when asked for (`viaProxy`): the station talks to it.
    let proxy: FaultProxy?

    /// `globexScanning`, when given, adds globex to the station's config with scanning set so;
    /// `serverConfig` is merged into the server's config, `stationConfig` into the station's;
    /// `serverDatabase` is the server's SQLite file (a fresh one by default).
    init(
        scanning: Bool = true, openBatch: Bool = true, viaProxy: Bool = false, bulkQty: Int? = nil,
        globexScanning: Bool? = nil, serverConfig: [String: Any] = [:], stationConfig: [String: Any] = [:],
        serverDatabase: String? = nil
    ) async throws {
        server = try await ServerProcess(database: serverDatabase, extraConfig: serverConfig)
        acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        scenario = try await PickingScenario.create(on: acme, bulkQty: bulkQty)
        folder = try TemporaryDirectory("scanpick-station")
        proxy = viaProxy ? try FaultProxy(upstream: server.baseURL) : nil
        var organisations: [String: Any] = [
            "acme": ["token": ServerProcess.tokens["acme"] ?? "", "scanning": ["enabled": scanning]]
        ]
        if let globexScanning {
            organisations["globex"] = [
                "token": ServerProcess.tokens["globex"] ?? "", "scanning": ["enabled": globexScanning],
            ]
        }
        var settings: [String: Any] = [
            "station": "test-1", "worker": "worker-test", "server": (proxy?.url ?? server.baseURL).absoluteString,
            "database": folder.file("station.sqlite"), "queue": ["requestTimeoutSeconds": 2],
            "page": ["listen": "127.0.0.1:0"],
            "organisations": organisations,
        ]
        settings.merge(stationConfig) { _, new in new }
        self.settings = settings
        config = try folder.writePrivate(
            "station.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: settings)))
        if openBatch {
            let opened = try await scanpick(["batch", "open", scenario.batchId, "--org", "acme"])
            guard opened.status == 0 else { throw ServerProcessError(message: opened.standardError) }
        }
    }

    /// Writes the station config again with `change` applied to the original settings, in place
    /// (same file, as an editor that saves over it does).
    func rewriteConfig(_ change: (inout [String: Any]) -> Void) throws {
        var changed = settings
        change(&changed)
        try folder.writePrivate("station.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: changed)))
    }

    /// Sets acme's token in the config.
    func setAcmeToken(_ token: String) throws {
        try rewriteConfig { settings in
            var organisations = settings["organisations"] as? [String: Any] ?? [:]
            var acme = organisations["acme"] as? [String: Any] ?? [:]
            acme["token"] = token
            organisations["acme"] = acme
            settings["organisations"] = organisations
        }
    }

    /// A station config's `support`: badges `SUP-name`, and the PIN 4711.
    static var support: [String: Any] {
        [
            "badgePattern": "^SUP-(.+)$",
            "pinSha256": ["de650d61f5bd166a91f8ccec3158297db18b9d50eaedca238cd29dc3a214a916"],
        ]
    }

    /// Runs `scanpick` with this station's config.
    func scanpick(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run(
            ProcessRunner.scanpick, arguments + ["--config", config], in: Repository.root,
            input: input.map { Array($0.utf8) })
    }

    /// Runs `scanpick station --wedge` (plus `arguments`), types `codes` on its scanner, waits for
    /// `expecting` scans in its log, then stops it (SIGTERM: the station keeps running when its input
    /// ends). Returns its exit status, what it printed and its scan log lines.
    func wedge(_ codes: [String], expecting count: Int, arguments: [String] = []) async throws -> (
        status: Int32, standardOutput: String, scans: [[String: Any]]
    ) {
        let station = try await StationProcess(config: config, arguments: ["--wedge"] + arguments)
        for code in codes { station.scan(code) }
        station.endInput()
        let scans = { station.logLines.filter { $0["event"] as? String == "scan" } }
        let seen = await eventually { scans().count >= count }
        let status = await station.stop()
        guard seen else { throw ServerProcessError(message: "saw \(scans().count) scans, not \(count)") }
        return (status, station.standardOutput, scans())
    }

    /// A folder of frames: each (sample image, count) repeated in order.
    func frames(_ name: String, _ pattern: [(String, Int)]) throws -> String {
        var index = 0
        for (sample, count) in pattern {
            let bytes = try Repository.sampleBytes(sample)
            let ext = (sample as NSString).pathExtension
            for _ in 0..<count {
                index += 1
                try folder.write("\(name)/\(String(format: "%05d", index)).\(ext)", bytes: bytes)
            }
        }
        return folder.file(name)
    }

    func picked() async throws -> [Int] {
        let byId = try await scenario.picked(on: acme)
        return scenario.tasks.map { byId[$0] ?? -1 }
    }

    /// The station's pick list (`scanpick pick-list --json`) rows by task id.
    func pickList() async throws -> [String: [String: Any]] {
        let listed = try await scanpick(["pick-list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any]
        var rows: [String: [String: Any]] = [:]
        for task in object?["tasks"] as? [[String: Any]] ?? [] {
            if let id = task["id"] as? String { rows[id] = task }
        }
        return rows
    }

    /// The JSON scan log lines the station wrote to standard error.
    static func scanLines(_ result: ProcessResult) -> [[String: Any]] {
        result.standardError.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == "scan" }
    }
}
