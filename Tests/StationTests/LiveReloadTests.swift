import Capture
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Station
@testable import scanpick

/// A reload (SIGHUP, or the config file's change) takes the keys the reload table calls live at
/// once, with no restart: scanning switched on opens the camera and the handheld scanners, switched
/// off closes them, and new symbologies apply to the next frame. A key that needs a restart is
/// named in `attention` and the log, and keeps its running value.
@Suite struct LiveReloadTests {
    /// `scanpick station --frames … --loop` started with scanning off opens no frame source; SIGHUP
    /// with scanning switched on opens it (its thread runs and its scans count), and switched off
    /// again closes it (the thread ends), the station running throughout.
    @Test func sighupWithScanningSwitchedOpensAndClosesTheRecordedFrames() async throws {
        let fixture = try await StationFixture(scanning: false)
        let frames = try fixture.frames("camera", [("clean/upca.png", 10), ("none/noise.png", 50)])
        let station = try await StationProcess(config: fixture.config, arguments: ["--frames", frames, "--loop"])
        let page = APIClient(station.page, token: nil)
        let reading = { station.threadNames.contains("source-1") }
        let events = { station.logLines.compactMap { $0["event"] as? String } }
        #expect(station.standardOutput.contains("scanning is off for organisation acme"))
        #expect(!reading())

        try fixture.rewriteConfig { Self.setScanning(true, in: &$0) }
        station.send(SIGHUP)
        #expect(await eventually { events().contains("scanning_on") })
        #expect(
            await eventually {
                station.logLines.contains { $0["event"] as? String == "scan" && $0["accepted"] as? Bool == true }
            },
            "\(station.standardError)")
        #expect(reading())

        try fixture.rewriteConfig { Self.setScanning(false, in: &$0) }
        station.send(SIGHUP)
        #expect(await eventually { events().contains("scanning_off") })
        #expect(await eventually { !reading() }, "the recorded frames are still read: \(station.threadNames)")
        #expect(try await page.get("/api/status").json["scanner"] as? String == "scanning off")
        #expect(!events().contains("config_invalid"))
        #expect(await station.stop() == 0)
        // Every line the station logged is one JSON object with its time and level.
        let lines = station.standardError.split(separator: "\n")
        #expect(lines.count >= 4)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["time"] is String && object?["level"] is String, "\(line)")
        }
        let reload = station.logLines.first { $0["event"] as? String == "config_reloaded" }
        #expect(reload?["level"] as? String == "notice")
    }

    /// A handheld scanner of the config is opened when scanning is switched on by a reload, its
    /// codes counted; closed when it is switched off; opened again when it comes back on.
    @Test func scanningSwitchedOnOpensTheHandheldScannerAndOffClosesIt() async throws {
        let fixture = try await StationFixture(scanning: false)
        let scanners: @Sendable (inout [String: Any]) -> Void = {
            $0["camera"] = ["enabled": false]
            $0["scanners"] = [["device": "/dev/input/scanpick-test-live"]]
        }
        try fixture.rewriteConfig { scanners(&$0) }
        let scanner = PluggedScanner(firstCode: "5901234123457")  // task B3's item
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let printed = Mutex<[String]>([])
        let logged = Mutex<[String]>([])
        let service = StationRuntime(
            configPath: fixture.config, station: station,
            devices: StationDevices(openCamera: StationDevices.system.openCamera, openScanner: scanner.open),
            output: { line in printed.withLock { $0.append(line) } },
            logger: Logger(sink: LogSink(write: { line in logged.withLock { $0.append(line) } })))
        let run = Task { try await service.run(source: nil, org: nil) }
        #expect(await eventually { printed.withLock { $0 }.contains { $0.hasPrefix("page: ") } })
        #expect(scanner.openings == 0)

        try fixture.rewriteConfig {
            scanners(&$0)
            Self.setScanning(true, in: &$0)
        }
        service.reload()
        #expect(await eventually { scanner.isOpen })
        #expect(try await eventually { try await fixture.picked() == [0, 1, 0] })

        try fixture.rewriteConfig { scanners(&$0) }
        service.reload()
        #expect(await eventually { !scanner.isOpen })
        #expect(logged.withLock { $0 }.contains { $0.contains(#""event":"scanning_off""#) })

        try fixture.rewriteConfig {
            scanners(&$0)
            Self.setScanning(true, in: &$0)
        }
        service.reload()
        #expect(await eventually { scanner.openings == 2 && scanner.isOpen })
        service.stop()
        let summary = try await run.value
        #expect(summary.accepted == 1)
        #expect(!scanner.isOpen)
    }

    /// Symbologies are read before each frame: a code of a symbology the config leaves out is not
    /// seen, and once a reload adds it, the frames that follow count it.
    @Test func newSymbologiesApplyToTheNextFrames() async throws {
        let fixture = try await StationFixture()
        let onlyCode128: @Sendable (inout [String: Any]) -> Void = {
            $0["camera"] = ["enabled": false]
            Self.setScanning(true, symbologies: ["code128"], in: &$0)
        }
        try fixture.rewriteConfig { onlyCode128(&$0) }
        let frames = try fixture.frames("shelf", [("clean/upca.png", 3), ("none/noise.png", 2)])
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let logged = Mutex<[String]>([])
        let service = StationRuntime(
            configPath: fixture.config, station: station, output: { _ in },
            logger: Logger(sink: LogSink(write: { line in logged.withLock { $0.append(line) } })))
        let run = Task { try await service.run(source: .frames(folder: frames, fps: 100, loop: true), org: nil) }
        // Three times round the frames: the UPC-A is never seen.
        #expect(await eventually { service.metrics.framesCaptured.value >= 15 })
        let scans = { logged.withLock { $0 }.filter { $0.contains(#""event":"scan""#) } }
        #expect(scans().isEmpty, "\(scans())")

        try fixture.rewriteConfig {
            onlyCode128(&$0)
            Self.setScanning(true, symbologies: ["code128", "upca"], in: &$0)
        }
        service.reload()
        #expect(await eventually { !scans().isEmpty })
        #expect(scans().first?.contains(#""accepted":true"#) == true, "\(scans())")
        service.stop()
        _ = try await run.value
    }

    /// A reload that changes a key needing a restart names it in `attention` (`restart_needed`) and
    /// in the log line's `needsRestart`, and keeps its running value; a live key changed with it
    /// applies at once and is not named.
    @Test func aRestartKeyIsNamedInAttentionAndTheLogAndKeepsItsRunningValue() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig { $0["camera"] = ["enabled": false] }
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let printed = Mutex<[String]>([])
        let logged = Mutex<[String]>([])
        let service = StationRuntime(
            configPath: fixture.config, station: station, output: { line in printed.withLock { $0.append(line) } },
            logger: Logger(sink: LogSink(write: { line in logged.withLock { $0.append(line) } })))
        let run = Task { try await service.run(source: nil, org: nil) }
        #expect(await eventually { printed.withLock { $0 }.contains { $0.hasPrefix("page: ") } })
        let heartbeat = station.configuration.heartbeatSeconds

        try fixture.rewriteConfig {
            $0["camera"] = ["enabled": false]
            $0["heartbeatSeconds"] = heartbeat + 7
            $0["worker"] = "worker-live"
        }
        service.reload()
        let restart = try #require(service.attention.current.first { $0.code == "restart_needed" })
        #expect(restart.message.contains("heartbeatSeconds"), "\(restart.message)")
        #expect(!restart.message.contains("worker"), "\(restart.message)")
        let line = try #require(logged.withLock { $0 }.last { $0.contains(#""event":"config_reloaded""#) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["needsRestart"] as? [String] == ["heartbeatSeconds"])
        #expect(station.configuration.heartbeatSeconds == heartbeat)
        #expect(station.configuration.worker == "worker-live")
        service.stop()
        _ = try await run.value
    }

    /// Sets acme's `scanning` in a station config's settings.
    static func setScanning(_ enabled: Bool, symbologies: [String]? = nil, in settings: inout [String: Any]) {
        var organisations = settings["organisations"] as? [String: Any] ?? [:]
        var acme = organisations["acme"] as? [String: Any] ?? [:]
        var scanning: [String: Any] = ["enabled": enabled]
        if let symbologies { scanning["symbologies"] = symbologies }
        acme["scanning"] = scanning
        organisations["acme"] = acme
        settings["organisations"] = organisations
    }
}

/// A handheld scanner the station opens through its devices: the first opening hands out one
/// code, then each waits, as an idle scanner does, until the station closes it.
private final class PluggedScanner: Sendable {
    private let firstCode: String
    private let sources = Mutex<[HeldSource<KeyCodeDecoder.Read>]>([])

    init(firstCode: String) { self.firstCode = firstCode }

    /// How many times the station opened it.
    var openings: Int { sources.withLock { $0.count } }

    /// Whether the station holds it open now.
    var isOpen: Bool { sources.withLock { $0.last.map { !$0.isClosed } ?? false } }

    var open: @Sendable (String, KeyCodeDecoder.Options) throws(CaptureError) -> any CodeSource {
        { [self] _, _ throws(CaptureError) in
            sources.withLock { sources in
                let source = HeldSource<KeyCodeDecoder.Read>(sources.isEmpty ? [.code(firstCode)] : [])
                sources.append(source)
                return source
            }
        }
    }
}
