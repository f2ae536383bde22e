import Lifecycle
import Synchronization
import Waking

/// The station's config re-read when asked, as a service of its group: on SIGHUP (the
/// ``UnixSignals/reloads`` stream), or when the config or one of its token files changes, or the
/// machine's trust store does (`scanpick config trust-ca`), each file looked at once a second.
/// Requests that come while a reload runs make one more reload, not one each: a storm of SIGHUPs
/// costs one or two reads of the config. Each reload runs on the blocking executor (it reads files
/// and writes the station database).
///
///     let reload = ConfigReload(files: config.sourceFiles, trustStore: [SystemTrust.bundle],
///                               reloads: signals.reloads, reload: { runtime.reload() },
///                               trustChanged: { runtime.trustStoreChanged() })
final class ConfigReload: Service {
    let name = "config-reload"
    private let config: ConfigWatcher
    private let trustStore: ConfigWatcher
    private let reloads: AsyncStream<Void>?
    private let reload: @Sendable () -> Void
    private let trustChanged: @Sendable () -> Void
    private let interval: Duration
    /// What was asked for since the last reload (a full reload covers a trust-store change too).
    private let pending = Mutex((config: false, trustStore: false))
    private let asked = WakeUp()

    /// `reload` re-reads the config; `trustChanged` looks at the trust store again; `reloads` (nil:
    /// none) are SIGHUPs.
    init(
        files: [String], trustStore: [String], reloads: AsyncStream<Void>?, interval: Duration = .seconds(1),
        reload: @escaping @Sendable () -> Void, trustChanged: @escaping @Sendable () -> Void
    ) {
        config = ConfigWatcher(files: files)
        self.trustStore = ConfigWatcher(files: trustStore)
        self.reloads = reloads
        self.interval = interval
        self.reload = reload
        self.trustChanged = trustChanged
    }

    /// Watches `files` from now on (a reloaded config may name other token files).
    func watch(_ files: [String]) { config.watch(files) }

    /// Reloads as asked until cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            if let reloads {
                group.addTask { [self] in
                    for await _ in reloads { ask(config: true) }
                }
            }
            group.addTask { [self] in await lookUntilCancelled() }
            await applyUntilCancelled()
            group.cancelAll()
        }
    }

    private func ask(config: Bool = false, trustStore: Bool = false) {
        pending.withLock {
            $0.config = $0.config || config
            $0.trustStore = $0.trustStore || trustStore
        }
        asked.ring()
    }

    private func lookUntilCancelled() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            let (config, trustStore) = (self.config, self.trustStore)
            let changed = await BlockingExecutor.shared.run { (config: config.look(), trustStore: trustStore.look()) }
            if changed.config || changed.trustStore { ask(config: changed.config, trustStore: changed.trustStore) }
        }
    }

    private func applyUntilCancelled() async {
        while !Task.isCancelled {
            await asked.sleep(for: .seconds(86_400))
            let wanted = pending.withLock { pending in
                defer { pending = (false, false) }
                return pending
            }
            if wanted.config {
                await BlockingExecutor.shared.run { [reload] in reload() }
            } else if wanted.trustStore {
                await BlockingExecutor.shared.run { [trustChanged] in trustChanged() }
            }
        }
    }
}
