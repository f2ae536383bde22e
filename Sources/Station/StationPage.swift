import ConfigFile
import Foundation
import HTTPServing
import Lifecycle
import Logging
import Queue
import SQLiteStorage
import Storage
import Synchronization
import Timestamps
import Wire

/// The station's local page and JSON API: what the picker's screen (or a kiosk, or a handheld) uses.
/// The API has the command line's `--json` shapes. Taps answer once durable, never waiting for the
/// server. ``PageAccess`` decides who may use it (the `Host` and `Origin` rules against DNS
/// rebinding and other sites, and the secret when the page serves the network); support's retry
/// and clear name who did them. Changes are pushed to the page as they happen (``PageEvents``,
/// `GET /api/events`); the polled routes stay for a browser whose event stream fails.
///
///     let page = try StationPage(station: station, sync: sync, attention: board, settings: config.page)
///     let group = ServiceGroup([sync.monitor, sync, page], logger: logger)  // it listens once started
///
/// This file holds its state, its start and stop, and the settings and handlers the station gives
/// it. Its other parts, each an extension in a file of its own: `StationPage+Files` (its own files),
/// `StationPage+Routes` (the route table, the dispatch and how failures are answered), `StationPage+Status` (the status pill and
/// the scan banner), `StationPage+Taps` (taps and typed scans), `StationPage+Picker` (batches,
/// later refusals, who is picking), `StationPage+Support` (support's sign-in and its work on the
/// queue) and `StationPage+Help` (calling the lead).
public final class StationPage: Service {
    public let name = "page"
    let station: PickStation
    let sync: SyncService
    let attention: AttentionBoard
    /// The event streams (`GET /api/events`).
    let events: PageEvents
    /// The camera's live view (`GET /api/preview.mjpeg`, `GET /api/preview.jpg`).
    let preview = PreviewFeed()
    /// Numbers the scan outcomes shown, so a page plays each one once; it starts from the time in
    /// milliseconds, so a restarted station's numbers still follow the ones a page has seen.
    let scanSequence = Mutex(Int(Date().timeIntervalSince1970 * 1000))
    /// How many of the page's routes are waiting for the server now (bounded).
    let serverCalls = Mutex(0)
    private let server: Mutex<HTTPServer?> = Mutex(nil)
    let lastScan = Mutex<StationJSON.LastScan?>(nil)
    let scanner = Mutex<String?>(nil)
    let files: [String: (type: String, bytes: [UInt8])]
    /// Who may use the page; replaced whole when the config's page settings change (and once the
    /// page listens, for the port the system chose).
    let access: Mutex<PageAccess>
    /// Makes `GET /metrics`'s text (see ``serveMetrics(_:)``).
    let metricsText = Mutex<(@Sendable () -> [UInt8])?>(nil)
    /// What takes a code typed into the page as a scan (``takeScans(_:)``).
    let scanHandler = Mutex<(@Sendable (String) -> ScanAnswer?)?>(nil)
    /// Who is signed in as support (retry, clear and park need it).
    let support = SupportSessions()
    /// The station's events (support's sign-ins, refusals dealt with, libmicrohttpd's complaints).
    let logger: Logger
    private let onListening: @Sendable (StationPage) -> Void

    /// The address the page listens on (port 0 resolved once it listens; the config's before).
    public var address: ListenAddress {
        server.withLock { $0?.address } ?? access.withLock { $0 }.settings.listen
    }

    /// `attention` holds what the running station noticed (shown with the queue's pause in the pill);
    /// `logger` takes the page's events; `onListening` hears the page once it listens. Nothing
    /// listens before ``start()``.
    public init(
        station: PickStation, sync: SyncService, attention: AttentionBoard,
        settings: StationConfiguration.PageSettings, logger: Logger = .discarding,
        onListening: @escaping @Sendable (StationPage) -> Void = { _ in }
    ) throws {
        self.station = station
        self.logger = logger
        self.sync = sync
        self.attention = attention
        self.onListening = onListening
        files = try Self.readFiles()
        let box = Handler()
        events = PageEvents {
            guard let page = box.page else { throw HTTPError(status: 503, code: "starting", message: "starting") }
            return try page.snapshot()
        }
        access = Mutex(PageAccess(settings: settings, port: settings.listen.port))
        box.set(self)
    }

    /// Listens on `page.listen`; an address that cannot be listened on fails the start
    /// (``StationStartError/pageCannotListen(_:)``).
    public func start() async throws {
        let (settings, logger) = (access.withLock { $0 }.settings, logger)
        let router: HTTPServer.Router = { [weak self] in self?.answer($0) ?? .now(.json(503, [])) }
        let started: HTTPServer
        do {
            started = try await BlockingExecutor.shared.run {
                try HTTPServer(listen: settings.listen, limits: Self.limits, logger: logger, router: router)
            }
        } catch {
            throw StationStartError.pageCannotListen("\(error)")
        }
        access.withLock { $0 = PageAccess(settings: $0.settings, port: started.address.port) }
        server.withLock { $0 = started }
        onListening(self)
    }

    /// Serves, and publishes its events on a thread of its own, until cancelled; then ends the
    /// event streams and previews, closes (finishing the requests in flight) and waits for the
    /// publisher's thread to end.
    public func run() async {
        let events = self.events
        let publishing = Task {
            await BlockingExecutor.runOnOwnThread(named: "page-events") { events.publishUntilStopped() }
        }
        await waitUntilCancelled()
        events.stop()
        preview.stop()
        if let stopping = server.withLock({ $0.take() }) {
            // On a thread of its own: it waits for the requests in flight, which may need the pool.
            await BlockingExecutor.runOnOwnThread(named: "page-stop") { stopping.stop() }
        }
        await publishing.value
    }

    /// Something the page shows may have changed (a drain pass, a batch opened elsewhere): pushed
    /// to the page's event streams now.
    public func poke() { events.poke() }

    /// `GET /api/queue` shows at most this many unsent (pending, in flight, dead) actions, the
    /// oldest, and this many sent ones, the newest (`scanpick queue` shows them all).
    static let queueUnsentShown = 1000
    static let queueSentShown = 50

    /// One picker's page: small bodies, a few hundred connections, a few workers (taps are quick).
    static let limits = {
        var limits = HTTPServerLimits()
        limits.maxBodyBytes = 64 << 10
        limits.connectionLimit = 512
        limits.workerThreads = 4
        limits.bulkWorkerThreads = 1
        return limits
    }()

    /// A fresh one-time login link's path and query (`/login?code=…`) when the page needs its
    /// secret; any earlier unused link stops working.
    public func newLoginLink() -> String? { access.withLock { $0 }.newLoginPath() }

    /// The page's address as a browser should open it: its listen address, or for a wildcard one
    /// (`0.0.0.0`, `::`, which no browser may name: the page would answer 421) the first of
    /// `page.allowedHosts`, else this machine's loopback.
    public var url: String { access.withLock { $0 }.url }

    /// Applies re-read page settings on the same address: a rotated secret replaces the old one at
    /// once (its sessions and bearer stop working, unused login links too), and so do the allowed
    /// hosts. Event streams opened under the old rules are ended: they would go on showing every
    /// scan and sign-in to whoever opened them. Settings that admit alike keep the sessions.
    public func apply(_ settings: StationConfiguration.PageSettings) {
        let port = address.port
        let changed = access.withLock { access in
            guard !access.admitsAlike(settings) else { return false }
            access = PageAccess(settings: settings, port: port)
            return true
        }
        if changed { events.endStreams() }
    }

    /// Serves `GET /metrics` (Prometheus's text format, under the page's access rules) with what
    /// `text` makes.
    public func serveMetrics(_ text: @escaping @Sendable () -> [UInt8]) {
        metricsText.withLock { $0 = text }
    }

    /// `POST /api/scans`'s answer: how the scan went, as its banner says it.
    public struct ScanAnswer: Sendable, Encodable {
        public var accepted: Bool
        public var message: String

        public init(accepted: Bool, message: String) {
            self.accepted = accepted
            self.message = message
        }
    }

    /// Takes codes typed into the page (`POST /api/scans`: a handheld scanner in keyboard mode that
    /// the station does not hold types a burst of keys ended by Enter) through `handler`, the
    /// station's scan path, whose checks, banner, sound and log are a scanner's. It answers nil when
    /// the scan could not be recorded.
    public func takeScans(_ handler: @escaping @Sendable (String) -> ScanAnswer?) {
        scanHandler.withLock { $0 = handler }
    }

    /// Lets the event streams' snapshots reach the page once it exists.
    private final class Handler: Sendable {
        private let box = Mutex<StationPage?>(nil)
        var page: StationPage? { box.withLock { $0 } }
        func set(_ page: StationPage) { box.withLock { $0 = page } }
    }
}

/// The page could not start.
public enum StationPageError: Error, CustomStringConvertible {
    case missingFile(String)
    public var description: String { "the station page's file \(name) is missing from the build" }
    private var name: String {
        switch self {
        case .missingFile(let name): name
        }
    }
}
