import Foundation
import Logging
import ServiceManager
import Synchronization
import Testing

@testable import Lifecycle

/// A group starts its services in order and stops them in reverse, whatever stops it.
@Suite(.timeLimit(.minutes(3))) struct ServiceGroupTests {
    /// What the services and systemd heard, in order.
    final class Record: Sendable {
        private let events = Mutex<[String]>([])
        func add(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }
        /// Waits (in steps, for a loaded machine) until `event` has happened.
        func waitFor(_ event: String) async {
            while !all.contains(event) { try? await Task.sleep(for: .milliseconds(5)) }
        }
    }

    struct Recording: Service {
        let name: String
        let record: Record
        var failsToStart = false
        var failsAfterStart = false
        var endsOnItsOwn = false

        struct Failure: Error, Equatable { let service: String }

        func start() async throws {
            if failsToStart { throw Failure(service: name) }
            record.add("start \(name)")
        }

        func run() async throws {
            record.add("run \(name)")
            if failsAfterStart { throw Failure(service: name) }
            if endsOnItsOwn { return }
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            // Stopping takes a moment (not a cancellable sleep): the one before it waits for it.
            await withCheckedContinuation { done in
                Thread {
                    usleep(20_000)
                    done.resume()
                }.start()
            }
            record.add("stop \(name)")
        }
    }

    func group(_ services: [Recording], record: Record, signals: AsyncStream<Int32>? = nil) -> ServiceGroup {
        ServiceGroup(
            services, stopSignals: signals, readyStatus: { "ready" }, logger: .discarding,
            notify: { record.add($0.components(separatedBy: "\n")[0]) })
    }

    @Test func stopOrderIsTheReverseOfStartOrder() async throws {
        let record = Record()
        let services = ["watchdog", "sync", "page", "scanner-1"].map { Recording(name: $0, record: record) }
        let group = group(services, record: record)
        let running = Task { try await group.run() }
        await record.waitFor("READY=1")
        group.stop()
        try await running.value
        let events = record.all
        #expect(
            events.filter { $0.hasPrefix("start ") } == [
                "start watchdog", "start sync", "start page", "start scanner-1",
            ])
        #expect(
            events.filter { $0.hasPrefix("stop ") } == ["stop scanner-1", "stop page", "stop sync", "stop watchdog"])
        // Ready once every service has started; stopping said before the first stops.
        let ready = try #require(events.firstIndex(of: "READY=1"))
        #expect(events.firstIndex(of: "start scanner-1")! < ready)
        #expect(events.firstIndex(of: "STOPPING=1")! < events.firstIndex(of: "stop scanner-1")!)
    }

    @Test func aStopSignalStopsTheGroupInOrderAndALoggedLineNamesIt() async throws {
        let record = Record()
        let collected = CollectedLog()
        let (signals, send) = AsyncStream<Int32>.makeStream()
        let group = ServiceGroup(
            ["a", "b"].map { Recording(name: $0, record: record) }, stopSignals: signals, logger: collected.logger,
            notify: { record.add($0.components(separatedBy: "\n")[0]) })
        let running = Task { try await group.run() }
        await record.waitFor("READY=1")
        send.yield(SIGTERM)
        try await running.value
        #expect(record.all.filter { $0.hasPrefix("stop ") } == ["stop b", "stop a"])
        #expect(collected.lines.contains { $0.contains(#""event":"stopping","signal":"SIGTERM""#) })
        #expect(collected.lines.last?.contains(#""event":"stopped""#) == true)
    }

    @Test func aServiceThatFailsToStartStopsThoseBeforeItInReverseAndStartsNoMore() async throws {
        let record = Record()
        let services = [
            Recording(name: "a", record: record), Recording(name: "b", record: record),
            Recording(name: "page", record: record, failsToStart: true), Recording(name: "d", record: record),
        ]
        await #expect(throws: Recording.Failure(service: "page")) { try await group(services, record: record).run() }
        let events = record.all
        #expect(!events.contains("start d") && !events.contains("READY=1"))
        #expect(events.filter { $0.hasPrefix("stop ") } == ["stop b", "stop a"])
    }

    @Test func aServiceThatFailsOrEndsStopsTheOthersInReverse() async throws {
        let record = Record()
        let failing = [
            Recording(name: "a", record: record), Recording(name: "b", record: record, failsAfterStart: true),
            Recording(name: "c", record: record),
        ]
        await #expect(throws: Recording.Failure(service: "b")) { try await group(failing, record: record).run() }
        #expect(record.all.filter { $0.hasPrefix("stop ") } == ["stop c", "stop a"])

        let ending = Record()
        let replay = [
            Recording(name: "a", record: ending), Recording(name: "frames", record: ending, endsOnItsOwn: true),
        ]
        try await group(replay, record: ending).run()  // a replay that ends ends the run, without an error
        #expect(ending.all.filter { $0.hasPrefix("stop ") } == ["stop a"])
    }

    @Test func cancellingTheRunStopsTheGroup() async throws {
        let record = Record()
        let group = group(["a", "b"].map { Recording(name: $0, record: record) }, record: record)
        let running = Task { try await group.run() }
        await record.waitFor("READY=1")
        running.cancel()
        try await running.value
        #expect(record.all.filter { $0.hasPrefix("stop ") } == ["stop b", "stop a"])
    }

    /// A stop asked for before the services have started (a service manager's, right after the
    /// start): nothing more starts, what started stops, and systemd never hears "ready".
    @Test func aStopBeforeTheStartStartsNothing() async throws {
        let record = Record()
        let group = group(["a", "b"].map { Recording(name: $0, record: record) }, record: record)
        group.stop()
        try await group.run()
        #expect(!record.all.contains("READY=1"))
        #expect(!record.all.contains("start a"))
    }

    /// systemd's watchdog is pinged from a thread of the group's once every service has started,
    /// and that thread has ended (no ping after) when the group's run returns.
    @Test func theWatchdogIsPingedWhileTheGroupRunsAndNotAfter() async throws {
        let record = Record()
        let notify: @Sendable (String) -> Void = { record.add($0.components(separatedBy: "\n")[0]) }
        let watchdog = ServiceManager.Watchdog(logger: .discarding, interval: .milliseconds(20), notify: notify)
        let group = ServiceGroup(
            [Recording(name: "a", record: record)], watchdog: watchdog, logger: .discarding, notify: notify)
        let running = Task { try await group.run() }
        while record.all.filter({ $0 == "WATCHDOG=1" }).count < 3 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(record.all.firstIndex(of: "READY=1")! < record.all.firstIndex(of: "WATCHDOG=1")!)
        group.stop()
        try await running.value
        let pings = record.all.filter { $0 == "WATCHDOG=1" }.count
        try await Task.sleep(for: .milliseconds(100))
        #expect(record.all.filter { $0 == "WATCHDOG=1" }.count == pings)
        #expect(record.all.lastIndex(of: "WATCHDOG=1")! < record.all.firstIndex(of: "stop a")!)
    }
}
