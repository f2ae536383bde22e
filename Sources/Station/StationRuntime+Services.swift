import Foundation
import Lifecycle
import ServiceManager

/// The station's parts as a list of services, built before anything runs, in the order they start.
extension StationRuntime {
    /// Builds the run's services, in the order the group starts them (and stops them in reverse):
    /// the network monitor, the sync loop (drainer, refresh, prune), the page, `/metrics`' own
    /// listener (with `metrics.listen`), the heartbeats, the config reload (SIGHUP from `reloads`,
    /// the config's files and the trust store), then a reader per source of `sources` (`source-1` …)
    /// and per handheld scanner of the config (`scanner-1` …). Nothing runs yet: it registers the
    /// loops systemd's watchdog watches (the returned watchdog, for the group), applies the config's
    /// scanning switch and shows what needs attention from the start.
    func makeServices(sources: [Source], org requested: String?, reloads: AsyncStream<Void>?) throws -> (
        services: [any Service], watchdog: ServiceManager.Watchdog
    ) {
        let configuration = station.configuration
        state.withLock { $0.requestedOrg = requested }
        // systemd's watchdog (under a unit with WatchdogSec=): every loop below says it is alive. A
        // drain pass may wait out a request's timeout for its refresh and its action. A probe has a
        // 2 s timeout: one that never ends (a wedged HTTP client) leaves the pill and the drain's
        // wake-ups stale. The page's listener thread is libmicrohttpd's and unwatched.
        let watchdog = ServiceManager.Watchdog(logger: logger)
        let syncLoop = watchdog.loop("sync", allowance: .seconds(2 * configuration.queue.requestTimeout + 30))
        let probeLoop = watchdog.loop("network-probe", allowance: .seconds(30))
        clearStoredAttention()
        let metrics = self.metrics
        let sync = station.syncService(
            attention: attention, logger: logger, onPass: { metrics.sent.add(UInt64(max(0, $0.sent))) },
            onPassDuration: { metrics.drainPassSeconds.observe(Self.seconds($0)) }, heartbeat: syncLoop.beat,
            probeHeartbeat: probeLoop.beat)
        checkTrust(configuration)
        let output = self.output
        let page = try StationPage(
            station: station, sync: sync, attention: attention, settings: configuration.page, logger: logger,
            onListening: { page in
                output("page: \(page.url)/")
                if let login = page.newLoginLink() { output("page login link (works once): \(page.url)\(login)") }
            })
        let text = metricsText(sync: sync)
        var services: [any Service] = [sync.monitor, sync, page]
        if let listen = configuration.metrics.listen {
            let logger = self.logger
            let access = configuration.metrics.access(main: configuration.page.listen, config: "the station config")
            services.append(
                StationMetricsListener(
                    listen: listen, access: access, text: text,
                    onListening: { logger.info("metrics_listening", ["address": .string($0.description)]) }))
        } else {
            page.serveMetrics(text)
        }
        takeScans(from: page)
        let reload = ConfigReload(
            files: configuration.sourceFiles, trustStore: [SystemTrust.bundle], reloads: reloads,
            reload: { [weak self] in self?.reload() }, trustChanged: { [weak self] in self?.trustStoreChanged() })
        services += [
            HeartbeatSender(station: station, sync: sync, attention: attention, metrics: metrics, logger: logger),
            reload,
        ]
        state.withLock { $0.parts = Parts(sync: sync, page: page, reload: reload) }

        if !Self.scanningWanted(configuration, org: requested) {
            output(
                "\(Self.scanningOff(configuration, org: requested)): no camera or scanner is opened until it is switched on; taps still work"
            )
        }
        applyScanning(configuration)
        for (index, source) in sources.enumerated() {
            let name = "source-\(index + 1)"
            switch source {
            case .wedge:
                // Its read blocked on input is left to the exit: it is not waited for.
                services.append(
                    SourceReader(name: name, runtime: self) { [self] in
                        Task {
                            await BlockingExecutor.runOnOwnThread(named: name) {
                                self.scan(source, name: name, page: page, loops: nil)
                            }
                        }
                    })
            case .camera(nil) where !configuration.camera.enabled:
                continue
            default:
                var loops: (capture: ServiceManager.Watchdog.Loop, decode: ServiceManager.Watchdog.Loop)?
                if case .camera = source {
                    loops = (watchdog.loop("capture"), watchdog.loop("decode"))
                    loops?.capture.idle()  // until scanning opens the camera
                    loops?.decode.idle()
                }
                let watched = loops
                services.append(
                    SourceReader(name: name, runtime: self) { [self] in
                        await keepScanning(source, name: name, number: index + 1, page: page, loops: watched)
                    })
            }
        }
        for (index, scanner) in configuration.scanners.enumerated() {
            let heartbeat = watchdog.loop("scanner-\(index + 1)")
            services.append(
                SourceReader(name: "scanner-\(index + 1)", runtime: self) { [self] in
                    await keepReading(scanner, number: index + 1, heartbeat: heartbeat)
                })
        }
        return (services, watchdog)
    }
}

/// One of the station's readers (a frame source, a code source, a handheld scanner) as a service:
/// it reads until cancelled, when its device or source is closed so that a thread blocked on it
/// returns. A reader whose source ended (a wedge's input, a caller's frames) leaves the station
/// running: the service waits for its stop.
///
///     SourceReader(name: "scanner-1", runtime: runtime) { await runtime.keepReading(…) }
struct SourceReader: Service {
    let name: String
    let runtime: StationRuntime
    let read: @Sendable () async -> Void

    func run() async {
        await withTaskCancellationHandler {
            await read()
            await waitUntilCancelled()
        } onCancel: { [runtime, name] in
            runtime.stopSource(name)
        }
    }
}
