import Foundation
import Lifecycle
import Logging
import Queue
import SQLiteStorage
import ScanPickClient
import Storage
import Synchronization
import TestSupport
import Testing

/// Waits are up to 30 s: in a full parallel run other suites block the two-thread cooperative pool
/// while they wait for subprocesses, which can starve the monitor's task for seconds.
@Suite struct NetworkMonitorTests {
    @Test func reportsOnlineAndOfflineEdgesOnce() async throws {
        let reachable = Mutex(true)
        let edges = Mutex<[Bool]>([])
        let probes = Mutex(0)
        let monitor = NetworkMonitor(interval: 0.05) {
            probes.withLock { $0 += 1 }
            return reachable.withLock { $0 }
        }
        monitor.onEdge { online in edges.withLock { $0.append(online) } }
        let running = try await ServiceRun.start(monitor)
        #expect(await eventually { edges.withLock { $0 } == [true] })
        let seen = probes.withLock { $0 }
        #expect(await eventually { probes.withLock { $0 } >= seen + 2 })
        #expect(edges.withLock { $0 } == [true])  // steady state: more probes, no more edges
        reachable.withLock { $0 = false }
        #expect(await eventually { edges.withLock { $0 } == [true, false] })
        reachable.withLock { $0 = true }
        #expect(await eventually { edges.withLock { $0 } == [true, false, true] })
        #expect(monitor.isOnline == true)
        try await running.stop()
    }

    @Test func probeNowCutsTheWaitShort() async throws {
        let probes = Mutex(0)
        let monitor = NetworkMonitor(interval: 3600) {
            probes.withLock { $0 += 1 }
            return true
        }
        let running = try await ServiceRun.start(monitor)
        #expect(await eventually { probes.withLock { $0 } >= 1 })
        // Not "== 2": a network change (another test adds an address) also cuts the wait short.
        let before = probes.withLock { $0 }
        monitor.probeNow()
        #expect(await eventually { probes.withLock { $0 } > before })
        try await running.stop()
    }

    /// The station's watchdog watches the probe: it hears a probe start and end.
    @Test func theHeartbeatHearsEachProbeStartAndEnd() async throws {
        let beats = Mutex<[Bool]>([])
        let inProbe = Mutex<[Bool]>([])
        let monitor = NetworkMonitor(interval: 3600, heartbeat: { busy in beats.withLock { $0.append(busy) } }) {
            inProbe.withLock { $0.append(beats.withLock { $0.last ?? false }) }
            return ServerProbe(reachable: true, databaseReady: nil)
        }
        let running = try await ServiceRun.start(monitor)
        #expect(await eventually { beats.withLock { $0.count } >= 2 })
        try await running.stop()
        #expect(beats.withLock { Array($0.prefix(2)) } == [true, false])
        #expect(inProbe.withLock { $0.allSatisfy { $0 } })  // busy while probing
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")))
    func hearsLinuxNetworkChangesOverNetlink() async throws {
        let changes = Mutex(0)
        let watcher = try #require(NetlinkWatcher { changes.withLock { $0 += 1 } })
        let watching = Task {
            await BlockingExecutor.runOnOwnThread(named: "netlink-test") { watcher.watchUntilStopped() }
        }
        // An address added to and removed from the loopback interface: a real change, harmless.
        let address = "127.0.\(getpid() % 200 + 20).\(getpid() % 250 + 2)/32"
        let added = try await ProcessRunner.run("/usr/sbin/ip", ["addr", "add", address, "dev", "lo"], in: "/")
        #expect(added.status == 0, "\(added.standardError)")
        defer { _ = try? ProcessRunner.runBlocking("/usr/sbin/ip", ["addr", "del", address, "dev", "lo"], in: "/") }
        #expect(await eventually { changes.withLock { $0 } > 0 })
        watcher.stop()
        await watching.value
    }
}

/// These wait up to 90 s: in a full parallel run on two cores, the suite's servers, stations and
/// decoding can starve the service's tasks for tens of seconds (a run at load 16 took 131 s here).
@Suite struct SyncServiceTests {
    @Test func drainsOnItsOwnAndCatchesUpAfterAnOutage() async throws {
        let fixture = try await QueueFixture()
        let transport = ScanPickHTTPClient(
            server: fixture.server.baseURL, tokens: ["acme": QueueFixture.token], timeout: 2)
        let drainer = Drainer(
            queue: fixture.queue, transport: transport, backoff: BackoffPolicy(initial: 0.1, cap: 0.2))
        let probes = Mutex(0)
        let monitor = NetworkMonitor(interval: 0.1) {
            defer { probes.withLock { $0 += 1 } }
            return await transport.isReachable(timeout: 1)
        }
        let sync = SyncService(drainer: drainer, monitor: monitor, options: QueueOptions(drainInterval: 3600))
        let running = try await SyncRun(sync)
        defer { Task { await running.stop() } }

        _ = try fixture.pick(0)
        sync.poke()  // what the station does after an enqueue
        #expect(try await eventually { try fixture.queue.counts().sent == 1 })

        // The dead spot: taps pile up, nothing is lost.
        try await fixture.server.stop()
        #expect(await eventually { !sync.isOnline })
        _ = try fixture.pick(0)
        _ = try fixture.pick(1)
        sync.poke()
        let seen = probes.withLock { $0 }
        #expect(await eventually { probes.withLock { $0 } >= seen + 2 })  // offline all along
        #expect(try fixture.queue.counts().pending == 2)

        // Back in range: the online edge drains without anyone asking.
        try await fixture.server.start()
        #expect(try await eventually { try fixture.queue.counts().sent == 3 })
        #expect(try await fixture.picked() == [2, 1, 0])
    }

    /// An action that failed to send during an outage carries a backoff; once the server answers a
    /// probe again, it goes at once instead of waiting the backoff out (here ten minutes).
    @Test func aServerBackInReachIsSentToAtOnceWhateverTheOutagesBackoff() async throws {
        let fixture = try await QueueFixture()
        let transport = ScanPickHTTPClient(
            server: fixture.server.baseURL, tokens: ["acme": QueueFixture.token], timeout: 2)
        let drainer = Drainer(
            queue: fixture.queue, transport: transport, backoff: BackoffPolicy(initial: 600, cap: 600),
            unitRandom: { 1 })  // the whole ten minutes
        try await fixture.server.stop()
        let id = try fixture.pick(0)
        let failed = try await drainer.drainPass()
        guard case .transient = failed.stop else {
            throw TestFailure("expected a transient failure, got \(failed.stop)")
        }
        let retryAt = try #require(try fixture.queue.action(id)?.nextAttemptAt)
        #expect(retryAt > Date().addingTimeInterval(500))

        let monitor = NetworkMonitor(interval: 0.1) { await transport.isReachable(timeout: 1) }
        let sync = SyncService(drainer: drainer, monitor: monitor, options: QueueOptions(drainInterval: 3600))
        let running = try await SyncRun(sync)
        defer { Task { await running.stop() } }
        try await fixture.server.start()
        #expect(try await eventually { try fixture.queue.counts().sent == 1 })
        #expect(try await fixture.picked() == [1, 0, 0])
    }

    @Test func noticesActionsQueuedByAnotherProcess() async throws {
        let fixture = try await QueueFixture()
        let transport = ScanPickHTTPClient(
            server: fixture.server.baseURL, tokens: ["acme": QueueFixture.token], timeout: 2)
        let drainer = Drainer(queue: fixture.queue, transport: transport, backoff: BackoffPolicy(initial: 1, cap: 2))
        let monitor = NetworkMonitor(interval: 5) { await transport.isReachable(timeout: 1) }
        let sync = SyncService(drainer: drainer, monitor: monitor, options: QueueOptions(drainInterval: 3600))
        let running = try await SyncRun(sync)
        defer { Task { await running.stop() } }
        #expect(await eventually { sync.isOnline })
        let config = try fixture.stationConfig(server: fixture.server.baseURL)
        let tap = try await ProcessRunner.scanpick(
            ["tap", "pick", fixture.scenario.tasks[1], "--outside-batch", "--org", "acme", "--config", config])
        #expect(tap.status == 0)
        #expect(try await eventually { try fixture.queue.counts().sent == 1 })
    }

    /// A started sync service over `fixture`'s queue that shows its failures on `attention` and
    /// logs them to `log`.
    func startedSync(
        _ fixture: QueueFixture, attention: AttentionBoard, log: @escaping @Sendable (String) -> Void
    ) async throws -> (SyncService, SyncRun) {
        let transport = ScanPickHTTPClient(
            server: fixture.server.baseURL, tokens: ["acme": QueueFixture.token], timeout: 2)
        let drainer = Drainer(queue: fixture.queue, transport: transport, backoff: BackoffPolicy(initial: 1, cap: 2))
        let monitor = NetworkMonitor(interval: 5) { await transport.isReachable(timeout: 1) }
        let sync = SyncService(
            drainer: drainer, monitor: monitor, options: QueueOptions(drainInterval: 3600), attention: attention,
            logger: Logger(sink: LogSink(write: log)))
        return (sync, try await SyncRun(sync))
    }

    @Test func aFailedPassIsLoggedAndShownNeverSwallowed() async throws {
        let fixture = try await QueueFixture()
        let attention = AttentionBoard()
        let logged = Mutex<[String]>([])
        let (sync, running) = try await startedSync(fixture, attention: attention) { line in
            logged.withLock { $0.append(line) }
        }
        defer { Task { await running.stop() } }
        #expect(await eventually { sync.isOnline })

        // The queue's table becomes unreadable under the running station (as a damaged page would).
        _ = try fixture.pick(0)
        let other = try Database(path: fixture.queue.database.path)
        try other.execute("ALTER TABLE actions RENAME TO actions_gone")
        sync.poke()
        #expect(await eventually { attention.current.map(\.code).contains("sync_failed") })
        #expect(logged.withLock { $0 }.contains { $0.contains(#""event":"sync_failed""#) && $0.contains("actions") })

        // Mended: the next pass sends the action and the attention goes.
        try other.execute("ALTER TABLE actions_gone RENAME TO actions")
        sync.poke()
        #expect(try await eventually { try fixture.queue.counts().sent == 1 })
        #expect(await eventually { attention.current.isEmpty })
    }

    /// The watch for other processes' actions reads the queue every half second; a queue it cannot
    /// read (here its file's header overwritten after another process committed) is reported once,
    /// logged and shown, and the report goes when the queue can be read again.
    @Test func aQueueTheWatchCannotReadIsReportedNotSkipped() async throws {
        let fixture = try await QueueFixture()
        let attention = AttentionBoard()
        let logged = Mutex<[String]>([])
        let (sync, running) = try await startedSync(fixture, attention: attention) { line in
            logged.withLock { $0.append(line) }
        }
        defer { Task { await running.stop() } }
        #expect(await eventually { sync.isOnline })

        // Another process commits a change that leaves page 1 in the file, not in the WAL: the
        // watch's next read must read the file's header, which is then no longer SQLite's.
        let path = fixture.queue.database.path
        let other = try Database(path: path)
        try other.execute("CREATE TABLE scratch (x); PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO scratch VALUES (1)")
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? file.close() }
        let header = try #require(try file.read(upToCount: 100))
        try file.seek(toOffset: 0)
        try file.write(contentsOf: Data(repeating: 0xFF, count: 100))
        #expect(await eventually { attention.current.map(\.code).contains("queue_unreadable") })
        let reports = { logged.withLock { $0 }.filter { $0.contains(#""event":"queue_unreadable""#) }.count }
        #expect(reports() == 1)

        // Mended, and committed to again: the watch reads it and the report goes.
        try file.seek(toOffset: 0)
        try file.write(contentsOf: header)
        try other.execute("INSERT INTO scratch VALUES (2)")
        #expect(await eventually { !attention.current.map(\.code).contains("queue_unreadable") })
        #expect(reports() == 1)
    }
}

/// A sync service and its network monitor running as the station's group runs them: the monitor
/// first, stopped last.
final class SyncRun: Sendable {
    let monitor: ServiceRun
    let sync: ServiceRun

    init(_ service: SyncService) async throws {
        monitor = try await ServiceRun.start(service.monitor)
        sync = try await ServiceRun.start(service)
    }

    func stop() async {
        try? await sync.stop()
        try? await monitor.stop()
    }
}
