import Foundation
import Logging
import Queue

/// A re-read config (SIGHUP, a config or token file changed, the trust store changed), applied by
/// the reload table.
extension StationRuntime {
    /// Re-reads the config file: the server, tokens, worker, scanning settings and the page's access
    /// (a rotated secret) apply at once and a paused queue looks again; keys that need a restart are
    /// shown as needing attention; a config that does not load is shown and the previous one kept.
    public func reload() {
        let (reload, page) = state.withLock { ($0.parts?.reload, $0.parts?.page) }
        do {
            let configuration = try StationConfiguration.load(path: configPath)
            attention.set("config", nil)
            let restart = station.apply(configuration)
            applyScanning(station.configuration)
            checkTrust(configuration)
            page?.apply(station.configuration.page)
            attention.set(
                "restart",
                restart.isEmpty
                    ? nil
                    : Attention(
                        code: "restart_needed",
                        message:
                            "the config changed \(restart.joined(separator: ", ")), which apply when the station restarts: restart it (the running station keeps the previous values)"
                    ))
            reload?.watch(configuration.sourceFiles)
            resumeQueue(because: "the corrected config is applied")
            if let page, let login = page.newLoginLink() {
                output("page login link (works once): \(page.url)\(login)")
            }
            if restart.isEmpty {
                logger.event("config_reloaded")
            } else {
                let keys = "[" + restart.map { "\"\($0)\"" }.joined(separator: ",") + "]"
                logger.log(Logger.Level(event: "restart_needed"), "config_reloaded", ["needsRestart": .raw(keys)])
            }
        } catch {
            attention.set(
                "config",
                Attention(
                    code: "config_invalid",
                    message: "the station config does not load (\(error)): the station keeps its previous settings"))
            logger.event("config_invalid", ["error": .string(String(describing: error))])
        }
    }

    /// The machine's trust store changed: a `tls.caFile` it now trusts no longer needs attention,
    /// and a queue paused on a certificate looks again at once (not after its backoff).
    func trustStoreChanged() {
        checkTrust(station.configuration)
        resumeQueue(because: "the machine's trust store changed")
    }

    /// Lifts a pause of the queue (a fault of the station, perhaps just fixed) and starts a pass at
    /// once. Should lifting it fail, what changed (`what`) is in force all the same, and the drainer
    /// looks again on its own after the backoff cap.
    func resumeQueue(because what: String) {
        do {
            try station.queue.resume()
            attention.set("resume", nil)
        } catch {
            report(
                "resume", "resume_failed",
                "\(what), but the queue's pause could not be lifted (\(error)); it is tried again after the backoff cap, or on the next change"
            )
        }
        poke()
    }

    /// Shows a `tls.caFile` that the machine does not trust yet (its HTTPS would fail on it).
    func checkTrust(_ configuration: StationConfiguration) {
        guard let file = configuration.certificateAuthorityFile, !SystemTrust.trusts(certificatesIn: file) else {
            attention.set("tls-ca", nil)
            return
        }
        let message = SystemTrust.notInstalled(file, config: configPath)
        output(message)
        attention.set("tls-ca", Attention(code: "tls_ca_not_installed", message: message))
    }
}
