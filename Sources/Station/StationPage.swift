import Foundation
import HTTPServing
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
/// and clear name who did them.
///
///     let page = try StationPage(station: station, sync: sync, attention: board, settings: config.page)
public final class StationPage: Sendable {
    private let station: PickStation
    private let sync: SyncService
    private let attention: AttentionBoard
    private let server: Mutex<HTTPServer?> = Mutex(nil)
    private let lastScan = Mutex<String?>(nil)
    private let scanner = Mutex<String?>(nil)
    private let files: [String: (type: String, bytes: [UInt8])]
    /// Who may use the page; replaced whole when the config's page settings change.
    private let access: Mutex<PageAccess>

    /// The address the page listens on (port 0 resolved).
    public let address: ListenAddress

    /// `attention` holds what the running station noticed (shown with the queue's pause in the pill).
    public init(
        station: PickStation, sync: SyncService, attention: AttentionBoard,
        settings: StationConfiguration.PageSettings
    ) throws {
        self.station = station
        self.sync = sync
        self.attention = attention
        var files: [String: (String, [UInt8])] = [:]
        for (name, type) in [
            ("index.html", "text/html; charset=utf-8"), ("page.css", "text/css"), ("page.js", "text/javascript"),
        ] {
            guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Page"),
                let data = FileManager.default.contents(atPath: url.path)
            else { throw StationPageError.missingFile(name) }
            files[name == "index.html" ? "/" : "/" + name] = (type, [UInt8](data))
        }
        self.files = files
        let box = Handler()
        let server = try HTTPServer(listen: settings.listen, limits: Self.limits) {
            box.page?.handle($0) ?? .json(503, [])
        }
        address = server.address
        access = Mutex(PageAccess(settings: settings, port: server.address.port))
        self.server.withLock { $0 = server }
        box.set(self)
    }

    public func stop() { server.withLock { $0?.stop() } }

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

    /// Applies re-read page settings on the same address: a rotated secret replaces the old one at
    /// once (its cookie and bearer stop working, unused login links too), and so do the allowed
    /// hosts.
    public func apply(_ settings: StationConfiguration.PageSettings) {
        let port = address.port
        access.withLock { $0 = PageAccess(settings: settings, port: port) }
    }

    /// Shows a scan's outcome on the page (the big banner readable from a metre away).
    public func show(scanAccepted accepted: Bool, message: String) {
        var object = JSONObjectWriter()
        object.add("accepted", bool: accepted)
        object.add("message", string: message)
        object.add("at", string: Timestamp.iso8601())
        lastScan.withLock { $0 = object.finished() }
    }

    /// Shows what the frame source is doing ("camera: not found", "scanner: input ended"), or nil.
    public func show(scanner state: String?) {
        scanner.withLock { $0 = state }
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let access = self.access.withLock { $0 }
            try access.check(request)
            if request.method == "POST" { try requireJSON(request) }
            switch (request.method, request.path) {
            case ("GET", "/login"):
                return access.login(request)
            case ("GET", let path) where files[path] != nil:
                let file = files[path]!
                return HTTPResponse(
                    status: 200, headers: [("Content-Type", file.type), ("Cache-Control", "no-store")], body: file.bytes
                )
            case ("GET", "/api/status"):
                // The pill answers even when the queue cannot be read: unknown counts, and why.
                var noticed = attention.current
                let counts: QueueCounts?
                do {
                    counts = try station.queue.counts()
                } catch {
                    counts = nil
                    noticed.append(StationJSON.databaseFailed(error))
                }
                return json(
                    200,
                    StationJSON.status(
                        online: sync.isOnline, serverReady: sync.isServerReady, server: station.transport.server,
                        counts: counts,
                        attention: StationJSON.attention(station, others: noticed),
                        scanner: scanner.withLock { $0 }, lastScan: lastScan.withLock { $0 }))
            case ("GET", "/api/pick-list"):
                return json(200, try StationJSON.pickList(station))
            case ("GET", "/api/queue"):
                // Polled every second or so: bounded, whatever the queue and its sent history hold.
                let actions = try station.queue.recentActions(
                    unsentLimit: Self.queueUnsentShown, sentLimit: Self.queueSentShown)
                return json(200, StationJSON.queue(actions))
            case ("POST", "/api/taps"):
                return try tap(request)
            case ("POST", let path) where path.hasPrefix("/api/queue/"):
                return try queueAction(path, request)
            default:
                return errorResponse(404, "not_found", "no route \(request.method) \(request.path)")
            }
        } catch let refusal as TapRefusal {
            return errorResponse(refusal.status, refusal.code, refusal.description)
        } catch let failure as PageFailure {
            return errorResponse(failure.status, failure.code, failure.message)
        } catch let error where error is SQLiteError || error is StorageError {
            // The station's own storage (busy past its timeout, a full disk, a row it cannot read):
            // nothing was done.
            return errorResponse(503, "storage", "the station could not use its database (\(error)); try again")
        } catch {
            return errorResponse(400, "bad_request", String(describing: error))
        }
    }

    /// Changes come as JSON only: a form or text body from another page would need a preflight
    /// no one answers.
    private func requireJSON(_ request: HTTPRequest) throws {
        guard request.header("content-type")?.hasPrefix("application/json") == true else {
            throw PageFailure(status: 415, code: "json_required", message: "send Content-Type: application/json")
        }
    }

    private func tap(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONDecoder().decode(TapBody.self, from: Data(request.body))
        let result: StationTaps.Result
        switch body.kind {
        case "pick": result = try station.taps.pick(body.pickTaskId, qty: try body.qty.value(default: 1))
        case "setQty":
            guard body.from != .absent, body.to != .absent else {
                throw PageFailure(status: 400, code: "bad_request", message: "a setQty tap needs from and to")
            }
            result = try station.taps.setQty(
                body.pickTaskId, from: try body.from.value(default: 0), to: try body.to.value(default: 0))
        default:
            throw PageFailure(status: 400, code: "bad_request", message: "kind must be pick or setQty")
        }
        sync.poke()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let task = String(decoding: try encoder.encode(result.task), as: UTF8.self)
        return json(200, #"{"actionId":\#(result.actionId),"pickTask":\#(task)}"#)
    }

    private func queueAction(_ path: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let parts = path.split(separator: "/")  // api, queue, ID, verb
        guard parts.count == 4, let id = Int(parts[2]) else {
            throw PageFailure(status: 404, code: "not_found", message: "no route POST \(path)")
        }
        // Support names who does it: the station log records a person, never "the page".
        let by = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["by"] as? String
        guard let by, ActionQueue.isSupportName(by) else {
            throw PageFailure(
                status: 400, code: "name_required",
                message: "say who does this: \"by\" is your name (1–64 characters, no control characters)")
        }
        do {
            switch parts[3] {
            case "retry": try station.queue.retry(id, by: by)
            case "clear": try station.queue.clear(id, by: by)
            default: throw PageFailure(status: 404, code: "not_found", message: "no route POST \(path)")
            }
        } catch let error as QueueError {
            throw PageFailure(status: error == .noSuchAction(id) ? 404 : 409, code: "queue", message: error.description)
        }
        sync.poke()
        return json(200, #"{"id":\#(id),"done":"\#(parts[3])"}"#)
    }

    private func json(_ status: Int, _ text: String) -> HTTPResponse {
        .json(status, Array(text.utf8), headers: [("Cache-Control", "no-store")])
    }

    private func errorResponse(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        var object = JSONObjectWriter()
        object.add("error", string: code)
        object.add("message", string: message)
        return json(status, object.finished())
    }

    /// Lets the server's handler reach the page once it exists (the server starts inside `init`).
    private final class Handler: Sendable {
        private let box = Mutex<StationPage?>(nil)
        var page: StationPage? { box.withLock { $0 } }
        func set(_ page: StationPage) { box.withLock { $0 = page } }
    }
}

/// `POST /api/taps`'s body. Quantities are read as any JSON number, so one too big for an `Int`
/// (or with a fraction) is refused as an invalid quantity (422), never as a crash or a parse error.
struct TapBody: Decodable {
    var pickTaskId: String
    var kind: String
    var qty: Quantity
    var from: Quantity
    var to: Quantity

    /// A quantity as sent: absent, a whole number, or a number no tap can carry.
    enum Quantity: Equatable {
        case absent
        case whole(Int)
        case unusable(String)

        func value(default fallback: Int) throws(TapRefusal) -> Int {
            switch self {
            case .absent: fallback
            case .whole(let value): value
            case .unusable(let text): throw .invalidQuantity("\(text) is not a quantity a tap can carry")
            }
        }
    }

    private enum Keys: String, CodingKey { case pickTaskId, kind, qty, from, to }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        pickTaskId = try container.decode(String.self, forKey: .pickTaskId)
        kind = try container.decode(String.self, forKey: .kind)
        func quantity(_ key: Keys) throws -> Quantity {
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return .absent }
            if let whole = try? container.decode(Int.self, forKey: key) { return .whole(whole) }
            let number = try container.decode(Double.self, forKey: key)  // not a number: a 400
            return .unusable(String(describing: number))
        }
        qty = try quantity(.qty)
        from = try quantity(.from)
        to = try quantity(.to)
    }
}

struct PageFailure: Error {
    var status: Int
    var code: String
    var message: String
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
