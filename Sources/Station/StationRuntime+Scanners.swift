import Capture
import Lifecycle
import Scanning
import ServiceManager
import Waking

/// The config's handheld scanners: each opened (and grabbed) while scanning is on, looked for
/// again with backoff when missing or unplugged.
extension StationRuntime {
    /// Reads one handheld scanner for as long as the station runs and scanning is on: opened (and
    /// grabbed) when scanning comes on, closed when it goes off; the device is read on a thread of
    /// its own while it is open.
    func keepReading(
        _ settings: StationConfiguration.ScannerSettings, number: Int, heartbeat: ServiceManager.Watchdog.Loop
    ) async {
        metrics.setScanner(number, ready: false)
        heartbeat.idle()
        while !Task.isCancelled {
            await scanning.wait { $0 }
            guard !Task.isCancelled, keepsReading("scanner-\(number)", closedWhenScanningStops: true) else { break }
            await BlockingExecutor.runOnOwnThread(named: "scanner-\(number)") {
                self.read(settings, number: number, heartbeat: heartbeat)
            }
            metrics.setScanner(number, ready: false)
        }
        heartbeat.idle()
    }

    /// Reads one handheld scanner until the station stops or scanning goes off: opened (and
    /// grabbed) when it is there, looked for again with backoff when it is not or is unplugged. Each
    /// code is one scan (the scanner has already made one deliberate read of it: no debounce); keys
    /// typed by a person are refused and logged without what they typed.
    func read(
        _ settings: StationConfiguration.ScannerSettings, number: Int, heartbeat: ServiceManager.Watchdog.Loop
    ) {
        let source = "scanner-\(number)"
        let loop = ScanLoop(
            station: station, reader: ReaderOptions(), debounce: station.configuration.debounce, logger: logger,
            onEnqueue: { [weak self] in self?.poke() })
        var backoff = 0.5
        var lastProblem: String?
        while keepsReading(source, closedWhenScanningStops: true) {
            heartbeat.alive()
            let scanner: any CodeSource
            do {
                scanner = try devices.openScanner(settings.device, settings.decoding)
            } catch {
                show(source, "scanner \(number): not found")
                if error.description != lastProblem {  // said once per problem, not per retry
                    lastProblem = error.description
                    report(source, "scanner_unavailable", "\(error); looking for it again")
                }
                heartbeat.idle()
                pause(seconds: backoff, source)
                backoff = min(backoff * 2, 5)
                continue
            }
            guard opened(source, closing: scanner.close, closedWhenScanningStops: true) else { break }
            backoff = 0.5
            lastProblem = nil
            metrics.setScanner(number, ready: true)
            attention.set(source, nil)
            output("scanner \(settings.device): \(scanner.name)")
            show(source, "scanner \(number): ready")
            log("scanner_ready", "\(settings.device): \(scanner.name), grabbed")
            do {  // ends when closed
                try scanCodes(scanner, loop: loop, reader: source, device: settings.device, heartbeat: heartbeat)
            } catch  where keepsReading(source, closedWhenScanningStops: true) {
                metrics.setScanner(number, ready: false)
                show(source, "scanner \(number): unplugged")
                report(source, "scanner_lost", "\(error); looking for it again")
                lastProblem = nil
            } catch {}  // closed as scanning went off, or the station stopped
            closed(source)
        }
        state.withLock { _ = $0.sourceStates.removeValue(forKey: source) }
        attention.set(source, nil)
        heartbeat.idle()
    }

    /// Waits `seconds`, or less when the reader `source` stops or scanning goes off: the wait is
    /// what they close (``opened(_:closing:closedWhenScanningStops:)``), so either ends it at once.
    func pause(seconds: Double, _ source: String) {
        let wake = WakeUp()
        guard opened(source, closing: { wake.ring() }, closedWhenScanningStops: true) else { return }
        wake.wait(timeout: .seconds(seconds))
        closed(source)
    }
}
