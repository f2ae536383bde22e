import Capture
import Digest
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing
import Timestamps
import Wire

@testable import Station
@testable import scanpick

/// The station's `GET /metrics` on its page's listener, read by Prometheus's parser, against what
/// the station really did: frames a camera faster than the scan loop dropped, the camera's state,
/// and the age of the oldest unsent action next to `scanpick status --json`.
@Suite struct StationMetricsTests {
    static func scrape(_ page: URL) async throws -> PrometheusScrape {
        let reply = try await APIClient(page, token: nil).get("/metrics")
        #expect(reply.status == 200, "\(reply.text)")
        return try await PrometheusScrape.parse(reply.text)
    }

    /// A camera that delivers frames faster than the scan loop decodes them keeps only the newest:
    /// the others are dropped, and `/metrics` counts every frame as decoded or dropped. The camera
    /// is up while it captures and down once it fails.
    @Test func framesACameraDeliversFasterThanTheScanLoopAreCountedAsDropped() async throws {
        let fixture = try await StationFixture()
        let recorded = try RecordedFrames(folder: try fixture.frames("fast", [("none/noise.png", 1)]))
        let image = try #require(try recorded.nextFrame()).image
        let camera = FastCamera()
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let printed = Mutex<[String]>([])
        let service = StationRuntime(
            configPath: fixture.config, station: station, output: { line in printed.withLock { $0.append(line) } },
            logger: .discarding)
        let run = Task { try await service.run(sources: [.frameSource(camera)], org: nil) }
        let pageLine = { printed.withLock { $0 }.first { $0.hasPrefix("page: ") } }
        #expect(await eventually { pageLine() != nil && camera.slot.waitingTakers == 1 })
        let page = try #require(pageLine().flatMap { URL(string: String($0.dropFirst("page: ".count))) })
        let idle = try await Self.scrape(page)
        #expect(idle.value("scanpick_station_camera_up") == 1)
        #expect(idle.value("scanpick_station_frames_dropped_total") == 0)

        // The capture side puts frames as fast as it can while the decoder is busy.
        let offered = try await onOwnThread {
            var count = 0
            while camera.slot.droppedFrames < 20 {
                camera.slot.put(Frame(image: image, time: Double(count) / 1000, index: count, capturedAt: Date()))
                count += 1
            }
            return count
        }
        // The decoder has taken the last frame and waits for another: every frame is counted. (A
        // decoder that had not woken yet also waits, with the newest frame still in the slot: the
        // counts are what say it took it.)
        #expect(
            try await eventually {
                let scrape = try await Self.scrape(page)
                let counted =
                    (scrape.value("scanpick_station_frames_dropped_total") ?? 0)
                    + (scrape.value("scanpick_station_frames_captured_total") ?? 0)
                return counted == Double(offered) && camera.slot.waitingTakers == 1
            })
        let busy = try await Self.scrape(page)
        let dropped = try #require(busy.value("scanpick_station_frames_dropped_total"))
        let decoded = try #require(busy.value("scanpick_station_frames_captured_total"))
        #expect(dropped == Double(camera.slot.droppedFrames) && dropped >= 20)
        #expect(decoded >= 1)
        #expect(decoded + dropped == Double(offered), "\(decoded) decoded + \(dropped) dropped of \(offered)")
        #expect(busy.value("scanpick_station_decode_duration_seconds_count") == decoded)
        #expect(busy.value("scanpick_station_camera_up") == 1)

        // Unplugged: the camera is down, and the page says so.
        camera.unplug()
        #expect(try await eventually { try await Self.scrape(page).value("scanpick_station_camera_up") == 0 })
        let status = try await APIClient(page, token: nil).get("/api/status")
        let codes = (status.json["attention"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.contains("frames_failed"), "\(status.text)")

        service.stop()
        let summary = try await run.value
        #expect(summary.dropped == Int(dropped) && summary.frames == Int(decoded))
    }

    /// A tap queued while the server is away: `/metrics`'s oldest pending age is the time since the
    /// `oldestPendingAt` of `scanpick status --json` (and of the page's status), it grows while the
    /// tap waits, and both go back to none (0, null) once it is sent.
    @Test func theOldestPendingAgeIsTheAgeOfStatusOldestPendingAt() async throws {
        let fixture = try await StationFixture()
        try await fixture.server.stop()
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let tap = ["pickTaskId": fixture.scenario.tasks[0], "kind": "pick", "qty": 1] as [String: Any]
        #expect(try await page.post("/api/taps", json: tap).status == 200)

        func status() async throws -> [String: Any] {
            let result = try await fixture.scanpick(["status", "--json"])
            #expect([0, 3].contains(result.status), "\(result.standardError)")  // 3: the server is stopped
            return try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        }
        let pill = try await status()
        #expect(pill["pending"] as? Int == 1)
        let oldestText = try #require(pill["oldestPendingAt"] as? String)
        let oldest = try #require(Timestamp.date(oldestText))
        #expect(try await page.get("/api/status").json["oldestPendingAt"] as? String == oldestText)

        let before = Date()
        let first = try await Self.scrape(station.page)
        let after = Date()
        let age = try #require(first.value("scanpick_station_oldest_pending_age_seconds"))
        #expect(age > 0)
        #expect(
            age >= before.timeIntervalSince(oldest) - 0.01 && age <= after.timeIntervalSince(oldest) + 0.01,
            "age \(age) s, oldest \(oldestText), scraped \(before)…\(after)")
        #expect(first.value("scanpick_station_queue_actions", ["state": "pending"]) == 1)
        #expect(first.value("scanpick_station_online") == 0)
        #expect(
            try await eventually {
                try await Self.scrape(station.page).value("scanpick_station_oldest_pending_age_seconds") ?? 0
                    > age + 0.5
            })

        // The server is back: the tap is sent, and nothing is pending any more.
        try await fixture.server.start()
        #expect(try await eventually { try await status()["pending"] as? Int == 0 })
        #expect(try await status()["oldestPendingAt"] is NSNull)
        let drained = try await Self.scrape(station.page)
        #expect(drained.value("scanpick_station_oldest_pending_age_seconds") == 0)
        #expect(drained.value("scanpick_station_sent_total") == 1)
        #expect(await station.stop() == 0)
    }
}

/// A camera faster than the scan loop, as far as the loop can tell: the test puts frames in its
/// latest-frame slot (the capture thread's side), the loop takes the newest, and a frame replaced
/// before it was taken is dropped. Unplugged, it fails as a lost camera does.
private final class FastCamera: FrameSource, Sendable {
    let slot = LatestFrameSlot()
    private let unplugged = Mutex(false)

    func nextFrame() throws -> Frame? {
        if let frame = slot.take() { return frame }
        if unplugged.withLock({ $0 }) { throw CaptureError.deviceFailed("fast-camera", reason: "unplugged") }
        return nil
    }

    var droppedFrames: Int { slot.droppedFrames }
    var skippedFrames: Int { 0 }

    func close() { slot.close() }

    func unplug() {
        unplugged.withLock { $0 = true }
        slot.close()
    }
}

/// The station's `metrics.listen`: `/metrics` on a listener of its own, as the server has it.
@Suite struct StationMetricsListenerTests {
    /// On an address other machines reach, it wants a scraper's token (never the page's secret or an
    /// organisation's), answers only `/metrics`, carries the build and the process, and the page
    /// no longer serves `/metrics` at all: a central Prometheus never needs the picker's page.
    @Test func aMetricsListenerOfItsOwnWantsAScrapersToken() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig { settings in
            settings["metrics"] = ["listen": "0.0.0.0:0", "tokenSha256": [SHA256.hex(of: "scraper-token")]]
        }
        let station = try await StationProcess(config: fixture.config)
        let listening = { station.logLines.first { $0["event"] as? String == "metrics_listening" } }
        #expect(await eventually { listening() != nil })
        let address = try #require(listening()?["address"] as? String)
        let port = try #require(address.split(separator: ":").last.flatMap { Int($0) })
        let metrics = try #require(URL(string: "http://127.0.0.1:\(port)"))
        for token in [nil, "wrong", ServerProcess.tokens["acme"]] {
            let refused = try await APIClient(metrics, token: token).get("/metrics")
            #expect(refused.status == 401, "\(token ?? "no token"): \(refused.text)")
            #expect(refused.errorCode == "metrics_token_required")
            #expect(refused.text.contains("the station config's metrics.tokenSha256"))
            #expect(!refused.text.contains("scanpick_station_"))
        }
        let reply = try await APIClient(metrics, token: "scraper-token").get("/metrics")
        #expect(reply.status == 200)
        let scrape = try await PrometheusScrape.parse(reply.text)
        #expect(scrape.value("scanpick_station_queue_actions", ["state": "pending"]) == 0)
        #expect(scrape.value("scanpick_build_info", ["version": ScanPickVersion.current]) == 1)
        #expect(scrape.value("process_resident_memory_bytes") ?? 0 > 1_000_000)
        #expect(try await APIClient(metrics, token: "scraper-token").get("/api/status").status == 404)
        #expect(try await APIClient(station.page, token: nil).get("/metrics").status == 404)
        #expect(try await APIClient(station.page, token: nil).get("/api/status").status == 200)
        #expect(await station.stop() == 0)
    }

    /// `metrics.listen` on the page's own port is refused at load, naming both keys.
    @Test func aMetricsListenerOnThePagesPortIsRefused() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig { settings in
            settings["page"] = ["listen": "127.0.0.1:18377"]
            settings["metrics"] = ["listen": "0.0.0.0:18377"]
        }
        #expect {
            try StationConfiguration.load(path: fixture.config)
        } throws: { error in
            "\(error)".contains("metrics.listen")
                && "\(error)".contains("where page.listen (127.0.0.1:18377) already serves")
        }
    }
}
