import Capture
import Foundation
import Lifecycle
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Station
@testable import scanpick

/// The station's parts are a list of services built before anything runs: a group starts them in
/// the order docs/architecture.md gives and stops them in reverse, and a part that cannot start
/// stops the ones started before it, in reverse.
@Suite struct StationServicesOrderTests {
    /// The documented order, with `metrics.listen`, two sources and one handheld scanner.
    static let order = [
        "network-monitor", "sync", "page", "metrics-listener", "heartbeat", "config-reload", "source-1", "source-2",
        "scanner-1",
    ]

    @Test func theServicesStartInTheDocumentedOrderAndStopInReverse() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig { settings in
            settings["camera"] = ["enabled": false]
            settings["scanners"] = [["device": "/dev/input/scanpick-test-order"]]
            settings["metrics"] = ["listen": "127.0.0.1:0"]
        }
        let frames = HeldSource<Frame>([])
        let codes = HeldSource<KeyCodeDecoder.Read>([])
        let scanner = HeldSource<KeyCodeDecoder.Read>([])
        let runtime = try Self.runtime(fixture, scanner: scanner)
        let record = Record()
        let services = try runtime.makeServices(
            sources: [.frameSource(frames), .codeSource(codes)], org: nil, reloads: nil
        ).services
        let group = ServiceGroup(
            services.map { Recorded(service: $0, record: record) }, logger: .discarding,
            notify: { record.add($0.components(separatedBy: "\n")[0]) })
        let running = Task { try await group.run() }
        #expect(await eventually { record.all.contains("READY=1") })
        // Running: every reader holds its source, and the page answers.
        #expect(await eventually { frames.isWaiting && codes.isWaiting && scanner.isWaiting })
        let page = try #require(runtime.state.withLock { $0.parts?.page })
        let status = try await APIClient(try #require(URL(string: page.url)), token: nil).get("/api/status")
        #expect(status.status == 200)
        group.stop()
        try await running.value

        #expect(record.all.filter { $0.hasPrefix("start ") } == Self.order.map { "start \($0)" })
        #expect(record.all.filter { $0.hasPrefix("stop ") } == Self.order.reversed().map { "stop \($0)" })
        #expect(frames.isClosed && codes.isClosed && scanner.isClosed)
    }

    /// docs/architecture.md names the station's services in the order they start.
    @Test func theArchitecturePageListsTheServicesInTheirOrder() throws {
        let page = try String(contentsOfFile: Repository.root + "/docs/architecture.md", encoding: .utf8)
        let start = try #require(page.range(of: "## `scanpick station`"))
        let section = page[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let text = section[..<end]
        let documented = Self.order.filter { $0 != "source-2" }
        let positions = documented.map { text.range(of: "`\($0)`")?.lowerBound }
        #expect(!positions.contains(nil), "not named: \(zip(documented, positions).filter { $0.1 == nil }.map(\.0))")
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "the page lists them out of order")
    }

    /// A page address in use fails the page's start: the sync loop and the network monitor, started
    /// before it, are stopped in reverse, nothing after it starts, and the run throws why.
    @Test func aServiceThatCannotStartStopsTheOnesStartedInReverse() async throws {
        let fixture = try await StationFixture()
        let busy = "127.0.0.1:\(fixture.server.port)"
        try fixture.rewriteConfig { settings in
            settings["camera"] = ["enabled": false]
            settings["page"] = ["listen": busy]
        }
        let record = Record()
        let runtime = try Self.runtime(fixture, scanner: HeldSource([]))
        let services = try runtime.makeServices(sources: [], org: nil, reloads: nil).services
        let group = ServiceGroup(
            services.map { Recorded(service: $0, record: record) }, logger: .discarding,
            notify: { record.add($0.components(separatedBy: "\n")[0]) })
        await #expect {
            try await group.run()
        } throws: { error in
            "\(error)".contains("cannot listen on \(busy)") && "\(error)".contains("page.listen")
        }
        // Never ready: systemd hears only that the station stops.
        #expect(
            record.all == ["start network-monitor", "start sync", "STOPPING=1", "stop sync", "stop network-monitor"])

        // The same through the station's own run, which logs the failure at `error`.
        let logged = Mutex<[String]>([])
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let failing = StationRuntime(
            configPath: fixture.config, station: station, output: { _ in },
            logger: Logger(sink: LogSink(write: { line in logged.withLock { $0.append(line) } })))
        await #expect(throws: StationStartError.self) { try await failing.run(sources: [], org: nil) }
        let failure = try #require(logged.withLock { $0 }.first { $0.contains(#""event":"start_failed""#) })
        #expect(failure.contains(#""level":"error""#) && failure.contains(#""service":"page""#), "\(failure)")
    }

    /// A stop asked for before the run has started anything ends the run at once: nothing listens.
    @Test func aStopBeforeTheStartEndsTheRunWithNothingStarted() async throws {
        let fixture = try await StationFixture()
        try fixture.rewriteConfig { $0["camera"] = ["enabled": false] }
        let printed = Mutex<[String]>([])
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        let runtime = StationRuntime(
            configPath: fixture.config, station: station, output: { line in printed.withLock { $0.append(line) } },
            logger: .discarding)
        runtime.stop()
        let summary = try await runtime.run(sources: [.wedge], org: nil)
        #expect(summary == StationRuntime.Summary())
        #expect(!printed.withLock { $0 }.contains { $0.hasPrefix("page: ") })
    }

    static func runtime(_ fixture: StationFixture, scanner: HeldSource<KeyCodeDecoder.Read>) throws -> StationRuntime {
        let station = try PickStation.overHTTP(try StationConfiguration.load(path: fixture.config))
        return StationRuntime(
            configPath: fixture.config, station: station,
            devices: StationDevices(
                openCamera: StationDevices.system.openCamera, openScanner: { _, _ throws(CaptureError) in scanner }),
            output: { _ in }, logger: .discarding)
    }

    /// What the group did, in order: each service's start once it has started, its stop once its
    /// run has returned, and what systemd heard.
    final class Record: Sendable {
        private let events = Mutex<[String]>([])
        func add(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }
    }

    /// A station service as the group runs it, its start and stop recorded.
    struct Recorded: Service {
        let service: any Service
        let record: Record
        var name: String { service.name }

        func start() async throws {
            try await service.start()
            record.add("start \(name)")
        }

        func run() async throws {
            defer { record.add("stop \(name)") }
            try await service.run()
        }
    }
}
