import Foundation

extension StationConfiguration {
    /// How a change to a key of the config reaches a running station.
    public enum Reload: String, Sendable {
        /// The next frame, scan or request sees it (SIGHUP, or the file's change).
        case live
        /// It keeps its running value until the station restarts (`restart_needed` says which).
        case restart
    }

    /// One key of the config (as the README's reference names it) and how a change to it applies.
    public struct ReloadRule: Sendable {
        public let key: String
        public let reload: Reload
        /// Whether the key differs between two configs.
        let differs: @Sendable (StationConfiguration, StationConfiguration) -> Bool
        /// Puts the running value back into a re-read config (restart keys only).
        let keepRunning: @Sendable (inout StationConfiguration, StationConfiguration) -> Void
    }

    private static func live<T: Equatable & SendableMetatype>(
        _ key: String, _ value: @escaping @Sendable (StationConfiguration) -> T
    ) -> ReloadRule {
        ReloadRule(key: key, reload: .live, differs: { value($0) != value($1) }, keepRunning: { _, _ in })
    }

    private static func restart<T: Equatable & SendableMetatype>(
        _ key: String, _ path: WritableKeyPath<StationConfiguration, T> & Sendable
    ) -> ReloadRule {
        ReloadRule(
            key: key, reload: .restart, differs: { $0[keyPath: path] != $1[keyPath: path] },
            keepRunning: { new, running in new[keyPath: path] = running[keyPath: path] })
    }

    /// Every key of the station's config, live or restart: the one place that says so. The README's
    /// configuration reference and docs/architecture.md are checked against it (`ReloadTableTests`).
    public static let reloadTable: [ReloadRule] = [
        restart("station", \.station),
        restart("heartbeatSeconds", \.heartbeatSeconds),
        live("worker") { $0.worker },
        live("server") { $0.server },
        restart("database", \.databasePath),
        restart("queue.backoffInitialSeconds", \.queue.backoffInitial),
        restart("queue.backoffCapSeconds", \.queue.backoffCap),
        restart("queue.drainIntervalSeconds", \.queue.drainInterval),
        restart("queue.requestTimeoutSeconds", \.queue.requestTimeout),
        restart("queue.sentRetentionHours", \.queue.sentRetention),
        restart("queue.stuckAfterMinutes", \.queue.stuckAfter),
        restart("queue.maxAnswerBytes", \.queue.maxAnswerBytes),
        live("organisations.ORG.token") { $0.tokens },
        live("organisations.ORG.tokenFile") { $0.tokens },
        live("organisations.ORG.tokenEnv") { $0.tokens },
        live("organisations.ORG.scanning.enabled") { $0.organisations.mapValues(\.scanningEnabled) },
        live("organisations.ORG.scanning.symbologies") { $0.organisations.mapValues(\.symbologies) },
        live("debounce.eanUpcFrames") { $0.debounce.eanUpcFrames },
        live("debounce.otherFrames") { $0.debounce.otherFrames },
        live("debounce.holdOffSeconds") { $0.debounce.holdOff },
        restart("camera.enabled", \.camera.enabled),
        restart("camera.device", \.camera.device),
        restart("camera.width", \.camera.width),
        restart("camera.height", \.camera.height),
        restart("camera.fps", \.camera.fps),
        live("camera.scanLineSpacing") { $0.camera.scanLineSpacing },
        restart("scanners", \.scanners),
        restart("scanners[].device", \.scanners),
        restart("scanners[].terminator", \.scanners),
        restart("scanners[].maxKeyGapMilliseconds", \.scanners),
        restart("scanners[].groupSeparator", \.scanners),
        live("tls.caFile") { $0.certificateAuthorityFile },
        // A page whose address changes keeps all of its running settings: its access rules were
        // checked against the new address, not the one it listens on.
        ReloadRule(
            key: "page.listen", reload: .restart, differs: { $0.page.listen != $1.page.listen },
            keepRunning: { new, running in if new.page.listen != running.page.listen { new.page = running.page } }),
        live("page.allowRemote") { $0.page.allowRemote },
        live("page.allowedHosts") { $0.page.allowedHosts },
        live("page.tokenFile") { $0.page.secret },
        live("batchLabelPattern") { $0.batchLabelPattern },
        live("workerBadgePattern") { $0.workerBadgePattern },
        live("workers") { $0.workers },
        live("workers[].id") { $0.workers },
        live("workers[].name") { $0.workers },
        live("requireSignIn") { $0.requireSignIn },
        live("scanning.scanToSelect") { $0.scanToSelect },
        live("support.badgePattern") { $0.support.badgePattern },
        live("support.pinSha256") { $0.support.pinSha256 },
        restart("metrics.listen", \.metrics.listen),
        restart("metrics.tokenSha256", \.metrics.tokenSha256),
        restart("metrics.allowUnauthenticated", \.metrics.allowUnauthenticated),
    ]

    /// The config a running station takes from `new`: its live keys, with every restart key kept
    /// at its running value; and the restart keys that changed (each once, in the table's order;
    /// a scanner's settings are all `scanners`), with the page's live keys that changed beside a
    /// new `page.listen` (the page keeps all its running settings then).
    public static func reloaded(_ new: StationConfiguration, over running: StationConfiguration) -> (
        configuration: StationConfiguration, needsRestart: [String]
    ) {
        var merged = new
        var changed: [String] = []
        for rule in reloadTable where rule.reload == .restart && rule.differs(new, running) {
            let key = rule.key.hasPrefix("scanners") ? "scanners" : rule.key
            if !changed.contains(key) { changed.append(key) }
            rule.keepRunning(&merged, running)
        }
        if changed.contains("page.listen") {
            for rule in reloadTable
            where rule.key.hasPrefix("page.") && rule.reload == .live && rule.differs(new, running) {
                changed.append(rule.key)
            }
        }
        return (merged, changed)
    }
}
