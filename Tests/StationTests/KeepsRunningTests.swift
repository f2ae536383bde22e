import Capture
import Foundation
import Imaging
import Logging
import Queue
import Station
import Synchronization
import TestSupport
import Testing

@testable import scanpick

/// The station keeps its page, taps and drainer running whatever its frame source does, and says
/// what is wrong: real `scanpick station` processes against a real server, and the station
/// in-process where a device must appear on cue.
@Suite struct KeepsRunningTests {
    @Test func aCameraMissingAtStartIsShownAndTheStationKeepsRunning() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(
            config: fixture.config, arguments: ["--device", fixture.folder.file("video-not-plugged-in")])
        let page = APIClient(station.page, token: nil)
        #expect(
            try await eventually { try await page.get("/api/status").json["scanner"] as? String == "camera: not found" }
        )
        let status = try await page.get("/api/status").json
        let attention = try #require((status["attention"] as? [[String: Any]])?.first)
        #expect(attention["code"] as? String == "camera_not_found")
        #expect((attention["message"] as? String)?.contains("video-not-plugged-in: no such device") == true)
        // Taps and the drainer carry on.
        let tap = try await page.post("/api/taps", json: ["pickTaskId": fixture.scenario.tasks[0], "kind": "pick"])
        #expect(tap.status == 200)
        #expect(try await eventually { try await fixture.picked() == [1, 0, 0] })
        // `scanpick status` in another process shows it too, while the station runs.
        #expect(try await Self.statusAttention(fixture) == ["camera_not_found"])
        #expect(await station.stop() == 0)
        #expect(try await Self.statusAttention(fixture).isEmpty)
    }

    /// A camera missing at start and plugged in later is picked up by the station's own reopening
    /// (only the device is the test's), its status goes from "camera: not found" to the format it
    /// agreed, and a code held in front of it is validated, queued once and reaches the server.
    @Test func aCameraPluggedInAfterStartIsPickedUpAndScans() async throws {
        let fixture = try await StationFixture()
        // Task B3's EAN-13 code: scanning it selects B3 and counts one unit.
        let drawn = BarcodeRenderer.ean13("590123412345")
        let camera = PluggableCamera(GreyImage(width: drawn.width, height: drawn.height, pixels: drawn.pixels))
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let printed = Mutex<[String]>([])
        let service = StationRuntime(
            configPath: fixture.config, station: station,
            devices: StationDevices(openCamera: camera.open, openScanner: StationDevices.system.openScanner),
            output: { line in printed.withLock { $0.append(line) } }, logger: .discarding)
        let run = Task { try await service.run(source: .camera(device: "/dev/video-later"), org: nil) }
        #expect(
            await eventually { printed.withLock { $0 }.contains { $0.hasPrefix("page: http://") } },
            "the station did not start its page")
        let address = printed.withLock { $0 }.first { $0.hasPrefix("page: ") }.map { String($0.dropFirst(6)) }
        let page = APIClient(try #require(address.flatMap(URL.init(string:))), token: nil)
        let status = { try await page.get("/api/status").json }
        let attention = { try await status()["attention"] as? [[String: Any]] ?? [] }

        #expect(try await eventually { try await status()["scanner"] as? String == "camera: not found" })
        let missing = try await attention().first { $0["code"] as? String == "camera_not_found" }
        #expect((missing?["message"] as? String)?.contains("/dev/video-later: no such device") == true)
        #expect(try station.queue.counts().pending == 0)

        camera.plugIn()
        #expect(
            try await eventually { try await status()["scanner"] as? String == "camera: GREY \(drawn.width)x80" },
            "the camera plugged in was not picked up")
        #expect(try await attention().isEmpty)
        #expect(try await eventually { try await fixture.picked() == [0, 1, 0] })
        #expect(camera.opens > 1)  // looked for again, not opened once at start

        service.stop()
        let summary = try await run.value
        #expect(summary.accepted == 1)  // held in view: one scan, however many frames saw it
        #expect(summary.rejected == 0)
        #expect(try station.queue.counts().pending == 0)
    }

    /// The attention codes `scanpick status --json` shows.
    static func statusAttention(_ fixture: StationFixture) async throws -> [String] {
        let status = try await fixture.scanpick(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
        return (object?["attention"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    /// A station run from a shell whose log reader goes away (`scanpick station 2>&1 | tee log`
    /// and tee dies) loses log lines, not its life: SIGPIPE would have ended it silently.
    @Test func aLogReaderThatGoesAwayCostsLinesNotTheStation() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config, readingItsLog: false)
        let page = APIClient(station.page, token: nil)
        for _ in 0..<3 { station.scan("036000291452") }  // each scan writes a log line
        let a1 = fixture.scenario.tasks[0]  // 3 units of 036000291452
        #expect(try await eventually { try await fixture.pickList()[a1]?["qtyPicked"] as? Int == 3 })
        #expect(try await page.get("/api/status").status == 200)
        #expect(await station.stop() == 0)
    }

    @Test func aWedgeInputThatEndsIsShownAndTheStationKeepsRunning() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        station.scan("036000291452")
        station.endInput()
        #expect(
            try await eventually {
                try await page.get("/api/status").json["scanner"] as? String == "scanner: input ended"
            })
        let codes = (try await page.get("/api/status").json["attention"] as? [[String: Any]])?.compactMap {
            $0["code"] as? String
        }
        #expect(codes == ["scanner_input_ended"])
        // The scan before the end counted, and taps still work after it.
        let tap = try await page.post("/api/taps", json: ["pickTaskId": fixture.scenario.tasks[0], "kind": "pick"])
        #expect((tap.json["pickTask"] as? [String: Any])?["qtyPicked"] as? Int == 2)
        #expect(await station.stop() == 0)
        #expect(station.standardOutput.contains("stopped: 1 scans accepted"))
    }

    @Test func aScanThatCannotBeRecordedIsShownAndTheRunSaysSo() async throws {
        let fixture = try await StationFixture()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        // The queue's table becomes unusable under the running station.
        let queue = try ActionQueue(
            path: fixture.folder.file("station.sqlite"), extraMigrations: PickListCache.migrations)
        try queue.database.write { try $0.execute("ALTER TABLE actions RENAME TO actions_gone") }
        station.scan("036000291452")
        #expect(
            try await eventually {
                let codes = (try await page.get("/api/status").json["attention"] as? [[String: Any]])?.compactMap {
                    $0["code"] as? String
                }
                return codes?.contains("scan_failed") == true
            })
        // The pill still answers: the counts are unknown (null), and it says why.
        let status = try await page.get("/api/status")
        #expect(status.status == 200)
        #expect(status.json["pending"] is NSNull)
        let codes = (status.json["attention"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        #expect(codes.contains("database_failed"))
        let banner = status.json["lastScan"] as? [String: Any]
        #expect((banner?["message"] as? String)?.contains("was not recorded") == true)
        try queue.database.write { try $0.execute("ALTER TABLE actions_gone RENAME TO actions") }
        #expect(await station.stop() == 1)
    }
}

/// A camera that is not there (`open` fails as a missing V4L2 device does) until ``plugIn()``, then
/// streams `image` at about 30 frames a second, as a camera with a code held in front of it.
private final class PluggableCamera: Sendable {
    private let image: GreyImage
    private let state = Mutex((pluggedIn: false, opens: 0))

    init(_ image: GreyImage) { self.image = image }

    func plugIn() { state.withLock { $0.pluggedIn = true } }

    /// How often the station tried to open it.
    var opens: Int { state.withLock { $0.opens } }

    var open: V4L2Camera.Opener {
        { [self] device, _, _, _ throws(CaptureError) in
            let pluggedIn = state.withLock { state in
                state.opens += 1
                return state.pluggedIn
            }
            guard pluggedIn else { throw .noSuchDevice(device) }
            return Session(image: image)
        }
    }

    private final class Session: CaptureSession {
        let image: GreyImage
        let format = PixelFormat(fourcc: 0x5945_5247)  // "GREY"
        var width: Int { image.width }
        var height: Int { image.height }

        init(image: GreyImage) { self.image = image }

        func capture() -> CaptureResult {
            Thread.sleep(forTimeInterval: 1.0 / 30)  // a camera's frame interval, not a wait for an event
            return .frame(image, timestamp: 0)
        }
    }
}
