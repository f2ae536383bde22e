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
    private let horizon: IdempotencyHorizon

    /// Opens the database named by `configuration` and applies its pending migrations.
    public init(configuration: ServerConfiguration, log: @escaping @Sendable (String) -> Void) throws {
        store = try Self.openStore(configuration.database, poolSize: configuration.databasePoolSize)
        var byHash: [String: String] = [:]
        for (organisation, hashes) in configuration.organisations {
            for hash in hashes { byHash[hash] = organisation }
        }
        organisationByTokenHash = byHash
        retentionDays = configuration.idempotencyRetentionDays
        horizon = IdempotencyHorizon(
            retentionDays: configuration.idempotencyRetentionDays, marginHours: configuration.idempotencyMarginHours)
        self.log = log
    }

    /// Answers one request; never throws, never stops the server.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let start = ContinuousClock.now
        var organisation: String?
        var response: HTTPResponse
        do {
            // Every /api/ path needs a token first, so strangers learn nothing about routes.
            if request.path.hasPrefix("/api/") || request.path == "/api" { organisation = try authenticate(request) }
            let route = try Route.match(method: request.method, path: request.path)
            if let organisation {
                response = try answer(route, request, org: organisation)
            } else if route == .health {
                response = .json(200, Array(#"{"status":"ok"}"#.utf8))
            } else {
                throw APIError.unauthorized
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

    /// Deletes stored idempotency results older than the retention period; returns how many.
    @discardableResult
    public func pruneIdempotencyKeys(now: Date = Date()) throws -> Int {
        let cutoff = Int(now.timeIntervalSince1970) - retentionDays * 86_400
        return try store.write { db in try db.run("DELETE FROM idempotency_keys WHERE created_at < ?", [cutoff]) }
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
            return SQLiteServerStore(queue: try DatabaseQueue(path: path, migrations: ServerSchema.sqlite))
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
        case .health:
            return .json(200, Array(#"{"status":"ok"}"#.utf8))
        case .upsertOrders:
            let body = try JSONCoding.decode(UpsertOrdersRequest.self, from: request.body)
            let count = try transaction(org) { store in try store.upsert(body.orders) }
            return .json(200, JSONCoding.encode(UpsertOrdersResponse(upserted: count)))
        case .createBatch:
            let body = try JSONCoding.decode(CreateBatchRequest.self, from: request.body)
            return .json(201, JSONCoding.encode(try transaction(org) { store in try store.createBatch(body.filters) }))
        case .getBatch(let id):
            return .json(200, JSONCoding.encode(try transaction(org) { store in try store.batch(id) }))
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
            return try idempotent(
                request, org: org, route: "void:\(id)", as: VoidShipmentRequest.self, key: \.idempotencyKey
            ) {
                store, _, _ in try store.voidShipment(id)
            }
        }
    }

    /// Runs `body` in one immediate transaction for `org`.
    private func transaction<T: Sendable>(_ org: String, _ body: @escaping (PickingStore) throws -> T) throws -> T {
        let dialect = store.dialect
        return try store.write { db in
            try body(PickingStore(db: db, dialect: dialect, org: org, now: Self.timestamp()))
        }
    }

    /// The idempotency protocol around a mutation: resolve the key, refuse a key already running
    /// (409), replay a stored result for the same request, refuse one for a different request (422),
    /// or run the mutation and store its result in the same transaction. A refusal (4xx) is not stored.
    private func idempotent<Body: Codable & Sendable, Result: Encodable>(
        _ request: HTTPRequest, org: String, route: String, as type: Body.Type,
        key keyPath: WritableKeyPath<Body, String?>,
        status: Int = 200, _ operation: @escaping (PickingStore, Body, String) throws -> Result
    ) throws -> HTTPResponse {
        let body = try JSONCoding.decode(type, from: request.body.isEmpty ? Array("{}".utf8) : request.body)
        let key = try IdempotencyKey.resolve(body: body[keyPath: keyPath], header: request.header("idempotency-key"))
        var unkeyed = body
        unkeyed[keyPath: keyPath] = nil
        let fingerprint = SHA256.hex(of: Array((route + "\n").utf8) + JSONCoding.encode(unkeyed))

        guard inFlight.claim(org: org, key: key) else { throw APIError.inProgress }
        defer { inFlight.release(org: org, key: key) }
        let dialect = store.dialect
        let horizon = self.horizon
        do {
            return try store.write { db in
                try Self.runOnce(db, dialect, org: org, key: key, fingerprint: fingerprint, status: status) { store in
                    try horizon.admit(body)  // the key is not known: is the action too old to tell?
                    return try operation(store, body, key)
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
