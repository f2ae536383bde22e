import Digest
import Foundation
import HTTPServing
import PostgresStorage
import Storage
import Wire

/// The reference ScanPick API: authenticates each request to an organisation, routes it, runs it in
/// one database transaction (SQLite or PostgreSQL, see ``ServerStore``), and logs one line for it.
/// Mutations under `/api/picking/` and `/api/shipments` are idempotent: the first result for a key is
/// stored in the same transaction as the change and replayed byte for byte.
///
///     let api = try ScanPickAPI(configuration: config, log: { line in print(line) })
///     let server = try HTTPServer(listen: config.listen, handler: api.handle)
public final class ScanPickAPI: Sendable {
    private let store: any ServerStore
    private let organisationByTokenHash: [String: String]
    private let inFlight = InFlightKeys()
    private let log: @Sendable (String) -> Void
    public let retentionDays: Int

    /// Opens the database named by `configuration` and applies its pending migrations.
    public init(configuration: ServerConfiguration, log: @escaping @Sendable (String) -> Void) throws {
        store = try Self.openStore(configuration.database, poolSize: configuration.databasePoolSize)
        var byHash: [String: String] = [:]
        for (organisation, hashes) in configuration.organisations {
            for hash in hashes { byHash[hash] = organisation }
        }
        organisationByTokenHash = byHash
        retentionDays = configuration.idempotencyRetentionDays
        self.log = log
    }

    /// Answers one request; never throws, never stops the server. May block on the database: call
    /// it on a worker thread.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        respond(to: request, withoutBlocking: false) ?? APIError.internalError.response
    }

    /// Answers at once what needs no database — `/health`, a missing or wrong token, an unknown route,
    /// a repeated header — and returns nil for everything else, which ``handle(_:)`` answers. Never
    /// blocks: the HTTP server calls it on its polling threads.
    public func answerWithoutBlocking(_ request: HTTPRequest) -> HTTPResponse? {
        respond(to: request, withoutBlocking: true)
    }

    private func respond(to request: HTTPRequest, withoutBlocking: Bool) -> HTTPResponse? {
        let start = ContinuousClock.now
        var organisation: String?
        var response: HTTPResponse
        do {
            for name in ["authorization", "idempotency-key"] where request.repeatedHeaders.contains(name) {
                throw APIError.duplicateHeader(name == "authorization" ? "Authorization" : "Idempotency-Key")
            }
            // Every /api/ path needs a token first, so strangers learn nothing about routes.
            if request.path.hasPrefix("/api/") || request.path == "/api" { organisation = try authenticate(request) }
            let route = try Route.match(method: request.method, path: request.path)
            switch route {
            case .health:
                response = .json(200, Array(#"{"status":"ok"}"#.utf8))
            case _ where withoutBlocking:
                return nil
            case .ready:
                response = try ready()
            default:
                guard let organisation else { throw APIError.unauthorized }
                response = try answer(route, request, org: organisation)
            }
        } catch let error as APIError {
            response = error.response
        } catch let error as PostgresError where error.isUnavailable {
            log(Self.errorLine(request, error))
            response = APIError.databaseUnavailable.response
        } catch {
            log(Self.errorLine(request, error))
            response = APIError.internalError.response
        }
        log(Self.requestLine(request, response, organisation: organisation, since: start))
        return response
    }

    /// `GET /health/ready`: 200 when the database answers a query, 503 when it does not.
    private func ready() throws(APIError) -> HTTPResponse {
        do {
            try store.checkReady()
        } catch {
            log(Self.errorLine(HTTPRequest(method: "GET", path: "/health/ready"), error))
            throw APIError.databaseUnavailable
        }
        return .json(200, Array(#"{"status":"ready"}"#.utf8))
    }

    /// Deletes stored idempotency results older than the retention period; returns how many.
    @discardableResult
    public func pruneIdempotencyKeys(now: Date = Date()) throws -> Int {
        let cutoff = Int(now.timeIntervalSince1970) - retentionDays * 86_400
        return try store.write(.bulk) { db in
            try db.run("DELETE FROM idempotency_keys WHERE created_at < ?", [cutoff])
        }
    }

    /// Applies the pending schema migrations to `database` without serving (`scanpick migrate`);
    /// returns the identifiers applied, empty when it was up to date. Refuses a newer schema.
    public static func migrate(_ database: ServerDatabase) throws -> [String] {
        switch database {
        case .sqlite(let path):
            try createFolder(of: path)
            return try Migration.apply(ServerSchema.sqlite, to: try Database(path: path))
        case .postgres(let connectionString):
            return try PostgresMigrator.apply(ServerSchema.postgres, to: try PostgresPool(connectionString, size: 1))
        }
    }

    /// Opens the store and migrates it (creating a SQLite file's folder first).
    static func openStore(_ database: ServerDatabase, poolSize: Int) throws -> any ServerStore {
        switch database {
        case .sqlite(let path):
            try createFolder(of: path)
            return try SQLiteServerStore(path: path)
        case .postgres(let connectionString):
            let pool = try PostgresPool(connectionString, size: poolSize)
            try PostgresMigrator.apply(ServerSchema.postgres, to: pool)
            return PostgresServerStore(pool: pool)
        }
    }

    private static func createFolder(of path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }

    // MARK: Routing

    private func authenticate(_ request: HTTPRequest) throws(APIError) -> String {
        guard let header = request.header("authorization"), header.lowercased().hasPrefix("bearer ") else {
            throw APIError.unauthorized
        }
        let token = header.dropFirst("bearer ".count).drop { $0 == " " }
        guard !token.isEmpty, let org = organisationByTokenHash[SHA256.hex(of: String(token))] else {
            throw APIError.unauthorized
        }
        return org
    }

    private func answer(_ route: Route, _ request: HTTPRequest, org: String) throws -> HTTPResponse {
        switch route {
        case .health, .ready:
            throw APIError.internalError  // answered in respond(to:withoutBlocking:)
        case .upsertOrders:
            let body = try JSONCoding.decodeValid(UpsertOrdersRequest.self, from: request.body)
            let count = try transaction(org, request.path, .bulk) { store in try store.upsert(body.orders) }
            return .json(200, JSONCoding.encode(UpsertOrdersResponse(upserted: count)))
        case .createBatch:
            let body = try JSONCoding.decodeValid(CreateBatchRequest.self, from: request.body)
            let batch = try transaction(org, request.path, .bulk) { store in try store.createBatch(body.filters) }
            return .json(201, JSONCoding.encode(batch))
        case .getBatch(let id):
            try Self.requirePathIdentifier(id)
            return .json(200, JSONCoding.encode(try transaction(org, request.path) { store in try store.batch(id) }))
        case .submitScan:
            return try idempotent(
                request, org: org, route: "submit-scan", as: SubmitScanRequest.self, key: \.idempotencyKey
            ) {
                store, body, key in PickTaskResponse(pickTask: try store.submitScan(body, key: key))
            }
        case .pick:
            return try idempotent(request, org: org, route: "pick", as: PickRequest.self, key: \.idempotencyKey) {
                store, body, key in PickTaskResponse(pickTask: try store.pick(body, key: key))
            }
        case .setQty:
            return try idempotent(request, org: org, route: "set-qty", as: SetQtyRequest.self, key: \.idempotencyKey) {
                store, body, key in PickTaskResponse(pickTask: try store.setQty(body, key: key))
            }
        case .createShipment:
            return try idempotent(
                request, org: org, route: "shipments", as: CreateShipmentRequest.self, key: \.idempotencyKey,
                status: 201
            ) { store, body, _ in try store.createShipment(body) }
        case .voidShipment(let id):
            try Self.requirePathIdentifier(id)
            return try idempotent(
                request, org: org, route: "void:\(id)", as: VoidShipmentRequest.self, key: \.idempotencyKey
            ) {
                store, _, _ in try store.voidShipment(id)
            }
        }
    }

    /// Runs `body` in one immediate transaction for `org`.
    private func transaction<T: Sendable>(
        _ org: String, _ path: String, _ priority: DatabaseQueue.WritePriority = .quick,
        _ body: @escaping (PickingStore) throws -> T
    ) throws -> T {
        let dialect = store.dialect
        return try write(path, priority) { db in
            try body(PickingStore(db: db, dialect: dialect, org: org, now: Self.timestamp()))
        }
    }

    /// How long one request's work may hold the write transaction (SQLite's only writer) before the
    /// server logs it as a `slow_transaction`: the bounds on every request are meant to keep each
    /// one well under it.
    static let writerHoldLimit = Duration.milliseconds(100)

    /// Runs `body` in the store's write transaction, timing the part that is this request's own.
    private func write<T: Sendable>(
        _ path: String, _ priority: DatabaseQueue.WritePriority = .quick,
        _ body: @escaping (any SQLConnection) throws -> T
    ) throws -> T {
        try store.write(priority) { db in
            let start = ContinuousClock.now
            defer {
                let held = ContinuousClock.now - start
                if held > Self.writerHoldLimit {
                    var line = JSONObjectWriter()
                    line.add("time", string: Self.timestamp())
                    line.add("event", string: "slow_transaction")
                    line.add("path", string: path)
                    line.add(
                        "ms",
                        milliseconds: Double(held.components.attoseconds) / 1e15 + Double(held.components.seconds)
                            * 1000)
                    self.log(line.finished())
                }
            }
            return try body(db)
        }
    }

    /// The idempotency protocol around a mutation: resolve the key, refuse a key already running
    /// (409), replay a stored result for the same request, refuse one for a different request (422),
    /// or run the mutation and store its result in the same transaction. A refusal (4xx) is not stored.
    private func idempotent<Body: Codable & Sendable & ValidatedRequest, Result: Encodable>(
        _ request: HTTPRequest, org: String, route: String, as type: Body.Type,
        key keyPath: WritableKeyPath<Body, String?>,
        status: Int = 200, _ operation: @escaping (PickingStore, Body, String) throws -> Result
    ) throws -> HTTPResponse {
        let body = try JSONCoding.decodeValid(type, from: request.body.isEmpty ? Array("{}".utf8) : request.body)
        let key = try IdempotencyKey.resolve(body: body[keyPath: keyPath], header: request.header("idempotency-key"))
        var unkeyed = body
        unkeyed[keyPath: keyPath] = nil
        let fingerprint = SHA256.hex(of: Array((route + "\n").utf8) + JSONCoding.encode(unkeyed))

        guard inFlight.claim(org: org, key: key) else { throw APIError.inProgress }
        defer { inFlight.release(org: org, key: key) }
        let dialect = store.dialect
        do {
            return try write(request.path) { db in
                try Self.runOnce(db, dialect, org: org, key: key, fingerprint: fingerprint, status: status) { store in
                    try operation(store, body, key)
                }
            }
        } catch let error as PostgresError where error.isUniqueViolation {
            // Another server process stored this key between our look and our insert; its transaction
            // won and ours rolled back. Retrying now replays its answer.
            throw APIError.inProgress
        }
    }

    /// Inside one transaction: claim the key across processes (PostgreSQL), replay or refuse a stored
    /// result, or run `operation` and store its answer with the change.
    private static func runOnce<Result: Encodable>(
        _ db: any SQLConnection, _ dialect: SQLDialect, org: String, key: String, fingerprint: String, status: Int,
        _ operation: (PickingStore) throws -> Result
    ) throws -> HTTPResponse {
        let stored = try db.row(dialect.lookUpIdempotencyKey, [org, key])
        guard try stored?.int("claimed") == 1 else { throw APIError.inProgress }
        if let stored, let hash = try stored.optionalString("request_hash") {
            guard hash == fingerprint else { throw APIError.keyReused }
            return .json(
                try stored.int("status"), try stored.bytes("body"), headers: [("Idempotent-Replayed", "true")])
        }
        let store = PickingStore(db: db, dialect: dialect, org: org, now: Self.timestamp())
        let answer = JSONCoding.encode(try operation(store))
        try db.runLater(
            "INSERT INTO idempotency_keys (org, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [org, key, fingerprint, status, answer, Int(Date().timeIntervalSince1970)])
        return .json(status, answer)
    }

    /// An id taken from the path (a batch, a shipment) keeps the same rules as one in a body.
    private static func requirePathIdentifier(_ id: String) throws(APIError) {
        do {
            try FieldRules.text(id, field: "id (in the path)")
        } catch {
            throw APIError.invalid(error)
        }
    }

    // MARK: Logging

    static func timestamp() -> String {
        Date().formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// One line per request: time, method, path, status, milliseconds, organisation. Never a token.
    static func requestLine(
        _ request: HTTPRequest, _ response: HTTPResponse, organisation: String?, since start: ContinuousClock.Instant
    )
        -> String
    {
        let elapsed = ContinuousClock.now - start
        var line = JSONObjectWriter()
        line.add("time", string: timestamp())
        line.add("method", string: request.method)
        line.add("path", string: request.path)
        line.add("status", number: response.status)
        line.add(
            "ms",
            milliseconds: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        if let organisation { line.add("org", string: organisation) }
        if response.headers.contains(where: { $0.0 == "Idempotent-Replayed" }) { line.add("replayed", bool: true) }
        return line.finished()
    }

    static func errorLine(_ request: HTTPRequest, _ error: any Error) -> String {
        var line = JSONObjectWriter()
        line.add("time", string: timestamp())
        line.add("event", string: "internal_error")
        line.add("path", string: request.path)
        line.add("error", string: String(describing: error))
        return line.finished()
    }
}
