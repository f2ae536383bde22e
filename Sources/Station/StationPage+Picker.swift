import Foundation
import HTTPServing
import JSONText
import Lifecycle
import Logging
import Queue
import Synchronization
import Wire

/// The page's routes for the rest of a picker's job: choosing, opening and finishing a batch,
/// acknowledging a later refusal, and signing in and out.
extension StationPage {
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

    /// The most calls to the server the page's routes make at once: each is a task and a request
    /// to the server until it answers (or the request times out).
    static let maxServerCalls = 2

    /// What a route that calls the server asks of it, once its request is checked.
    enum ServerCall: Sendable {
        /// `GET /api/batches[?org=ORG]`: the organisation's open batches (the open batch's
        /// organisation, or the only configured one, unless named), from the server, or the ones
        /// this station has cached when it cannot reach it (`fromCache`).
        case batchChoices(org: String)
        /// `POST /api/batches/{id}/open` with `{"org"?}`: opens the batch (from the server, or from
        /// the cache offline) and answers the new pick list.
        case openBatch(id: String, org: String)
    }

    /// Answers `GET /api/batches` or `POST /api/batches/{id}/open` (see ``answer(_:)``): checks the
    /// request and reads the cache on the blocking executor, then waits for the server, unless
    /// ``maxServerCalls`` are already under way (503 `busy`).
    func answerCallingServer(_ request: HTTPRequest) async -> HTTPResponse {
        let station = self.station
        do {
            let call = try await BlockingExecutor.shared.run { [self] in try serverCall(for: request) }
            let admitted = serverCalls.withLock { calls in
                guard calls < Self.maxServerCalls else { return false }
                calls += 1
                return true
            }
            guard admitted else {
                throw HTTPError(
                    status: 503, code: "busy",
                    message: "the station is already asking the server; try again in a moment")
            }
            defer { serverCalls.withLock { $0 -= 1 } }
            switch call {
            case .batchChoices(let org):
                return try json(200, Self.encode(try await station.batchChoices(org: org)))
            case .openBatch(let id, let org):
                _ = try await station.openBatch(id, org: org)
                events.poke()
                return json(200, try await BlockingExecutor.shared.run { try StationJSON.pickList(station) })
            }
        } catch {
            return Self.refusal(error, request)
        }
    }

    /// The call a request to a route that calls the server asks for, or what refuses it.
    private func serverCall(for request: HTTPRequest) throws -> ServerCall {
        switch try admittedRoute(request) {
        case .batches:
            return .batchChoices(org: try configuredOrganisation(request.query["org"]))
        case .openBatch(let id):
            struct Body: Decodable { var org: String? }
            let body = request.body.isEmpty ? Body() : try JSONDecoder().decode(Body.self, from: Data(request.body))
            guard ScanLoop.isBatchId(id) else {
                throw HTTPError(
                    status: 400, code: "invalid_field", message: "a batch id is 1–128 letters, digits, . _ -")
            }
            return .openBatch(id: id, org: try configuredOrganisation(body.org))
        default:
            throw HTTPError.noSuchRoute(request.path)
        }
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
}
