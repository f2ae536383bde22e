import Foundation
import HTTPServing
import JSONText
import Logging
import Queue
import Synchronization
import Wire

/// The page's routes for the rest of a picker's job: choosing, opening and finishing a batch,
/// acknowledging a later refusal, and signing in and out.
extension StationPage {
    /// `GET /api/batches[?org=ORG]`: the organisation's open batches (the open batch's
    /// organisation, or the only configured one, unless named), from the server, or the ones this
    /// station has cached when it cannot reach it (`fromCache`).
    func batchChoices(_ request: HTTPRequest) throws -> BatchChoices {
        let org = try configuredOrganisation(request.query["org"])
        let station = self.station
        return try callingServer { try await station.batchChoices(org: org) }
    }

    /// `GET /api/organisations`: the configured organisations, sorted. The page asks each for its
    /// batches when no batch is open and the station has several (`GET /api/batches` answers 400
    /// `which_organisation` then).
    func organisationNames() -> [String] { station.configuration.organisations.keys.sorted() }

    /// The answer of `GET /api/organisations`.
    struct Organisations: Encodable { var organisations: [String] }

    /// The organisation named (or the open batch's, or the only one), refused unless configured.
    private func configuredOrganisation(_ requested: String?) throws -> String {
        let org = try station.organisation(requested: requested, preferOpenBatch: true)
        guard station.configuration.organisations[org] != nil else {
            throw HTTPError(
                status: 404, code: "unknown_organisation",
                message: "organisation \(org.prefix(64)) is not configured on this station")
        }
        return org
    }

    /// The most calls to the server the page's routes make at once: each holds one of the page's
    /// few workers until the server answers (or the request times out), and taps must never wait
    /// behind them.
    static let maxServerCalls = 2

    /// Runs `body` unless ``maxServerCalls`` are already under way (then 503 `busy`).
    private func callingServer<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let admitted = serverCalls.withLock { calls in
            guard calls < Self.maxServerCalls else { return false }
            calls += 1
            return true
        }
        guard admitted else {
            throw HTTPError(
                status: 503, code: "busy", message: "the station is already asking the server; try again in a moment")
        }
        defer { serverCalls.withLock { $0 -= 1 } }
        return try Self.waiting(body)
    }

    /// `POST /api/batches/{id}/open` with `{"org"?}`: opens the batch (from the server, or from the
    /// cache offline) and answers the new pick list.
    func openBatch(_ id: String, _ request: HTTPRequest) throws -> String {
        struct Body: Decodable { var org: String? }
        let body = request.body.isEmpty ? Body() : try JSONDecoder().decode(Body.self, from: Data(request.body))
        guard ScanLoop.isBatchId(id) else {
            throw HTTPError(status: 400, code: "invalid_field", message: "a batch id is 1–128 letters, digits, . _ -")
        }
        let org = try configuredOrganisation(body.org)
        let station = self.station
        _ = try callingServer { try await station.openBatch(id, org: org) }
        events.poke()
        return try StationJSON.pickList(station)
    }

    /// `POST /api/batches/{id}/close` with `{}` (or `{"org"}`): the picker's "Finish batch". The
    /// station marks the batch closed and queues its close behind the actions before it (no wait
    /// for the server); answers the pick list. Finishing a batch finished already queues nothing.
    func closeBatch(_ id: String, _ request: HTTPRequest) throws -> String {
        struct Body: Decodable { var org: String? }
        let body = request.body.isEmpty ? Body() : try JSONDecoder().decode(Body.self, from: Data(request.body))
        guard ScanLoop.isBatchId(id) else {
            throw HTTPError(status: 400, code: "invalid_field", message: "a batch id is 1–128 letters, digits, . _ -")
        }
        let org = try configuredOrganisation(body.org)
        try station.pageTaps.closeBatch(id, org: org)
        sync.poke()
        events.poke()
        return try StationJSON.pickList(station)
    }

    /// `POST /api/refusals/{id}/acknowledge` with `{}`: the picker has dealt with a later refusal
    /// (put the unit back); it is no longer shown. Answers the pick list; 404 `no_such_refusal`.
    func acknowledgeRefusal(_ text: String) throws -> String {
        guard let id = Int(text), id > 0 else { throw PickerRefusalError.noSuchRefusal(0) }
        let worker = try station.workers.current()?.id
        try station.refusals.acknowledge(id, by: worker)
        var fields: LogFields = ["actionId": .number(id)]
        if let worker { fields.add("worker", .string(worker)) }
        logger.event("refusal_acknowledged", fields)
        events.poke()
        return try StationJSON.pickList(station)
    }

    /// `GET /api/workers`: `{"requireSignIn","badges","signedIn":{"id","name","since"}|null,
    /// "workers":[{"id","name"}]}`.
    func workersJSON() throws -> String {
        struct Answer: Encodable {
            var requireSignIn: Bool
            var badges: Bool
            var signedIn: StationWorkers.SignedIn?
            var workers: [StationConfiguration.Worker]

            private enum Keys: String, CodingKey { case requireSignIn, badges, signedIn, workers }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(requireSignIn, forKey: .requireSignIn)
                try container.encode(badges, forKey: .badges)
                try container.encode(signedIn, forKey: .signedIn)  // null, never left out
                try container.encode(workers, forKey: .workers)
            }
        }
        let configuration = station.configuration
        return try Self.encode(
            Answer(
                requireSignIn: configuration.requireSignIn, badges: configuration.workerBadgePattern != nil,
                signedIn: try station.workers.current(), workers: configuration.workers))
    }

    /// `POST /api/sign-in` with `{"workerId"}`: a worker chooses their name (one of the config's
    /// `workers`; a badge signs in by scanning).
    func signIn(_ request: HTTPRequest) throws -> String {
        struct Body: Decodable { var workerId: String }
        let body = try JSONDecoder().decode(Body.self, from: Data(request.body))
        guard let worker = station.configuration.workers.first(where: { $0.id == body.workerId }) else {
            throw HTTPError(
                status: 404, code: "unknown_worker",
                message: "no worker \(body.workerId.prefix(64)) in this station's config (workers): scan your badge")
        }
        try station.workers.signIn(id: worker.id, name: worker.name)
        events.poke()
        return try workersJSON()
    }

    /// `POST /api/sign-out`.
    func signOut() throws -> String {
        try station.workers.signOut()
        events.poke()
        return try workersJSON()
    }

    /// Runs `body` (a call to the server) to its end on the caller's thread, one of the page's few
    /// workers; the call is bounded by the queue's request timeout.
    static func waiting<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        guard let outcome = result.withLock({ $0 }) else {
            throw HTTPError(status: 500, code: "internal", message: "the call to the server ended without an answer")
        }
        return try outcome.get()
    }
}
