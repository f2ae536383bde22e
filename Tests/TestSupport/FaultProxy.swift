import Foundation
import HTTPServing
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP proxy in front of a real `scanpick serve`, on a real loopback socket, that can inject
/// the failures a warehouse network produces: 5xx, 429 with `Retry-After`, a request that never gets
/// an answer in time, or an answer held back after the server has already committed.
///
///     let proxy = try FaultProxy(upstream: server.baseURL)
///     proxy.script([.status(503), .pass])
public final class FaultProxy: Sendable {
    /// What to do with one request (scripted faults are used in order, then `pass`).
    public enum Fault: Sendable {
        /// Forward to the server and return its answer.
        case pass
        /// Answer this status without forwarding (`Retry-After` when given).
        case status(Int, retryAfter: String? = nil)
        /// Wait this long, then answer 503, never forwarding (a client timeout).
        case stall(seconds: Double)
        /// Forward (the server commits), then hold the answer this long before returning it.
        case holdAnswer(seconds: Double)
        /// Answer this, never forwarding: what something that is not the API says (a captive
        /// portal's `200 <html>`, a redirect, a web server's 405 page).
        case answer(Int, headers: [String: String], body: String)
    }

    private let core: ProxyCore
    private let server: HTTPServer

    public init(upstream: URL) throws {
        let core = ProxyCore(upstream: upstream)
        self.core = core
        server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { core.handle($0) }
    }

    deinit { stop() }

    /// Where stations should send their requests.
    public var url: URL { URL(string: "http://\(server.address)")! }

    /// Faults for the next requests, in order.
    public func script(_ faults: [Fault]) { core.state.withLock { $0.script += faults } }

    /// Drops the faults not yet used.
    public func clearScript() { core.state.withLock { $0.script.removeAll() } }

    /// Forwards requests for exactly `path` (the server answers them) but holds their answers back
    /// until ``releaseHeldAnswers()``: a request caught on its way back, for as long as a test needs.
    /// With `newKeysOnly`, only requests whose idempotency key the proxy has not seen before are
    /// held (a first attempt, not a resend).
    public func holdAnswers(to path: String, newKeysOnly: Bool = false) {
        core.state.withLock { state in
            state.heldPath = path
            state.holdsNewKeysOnly = newKeysOnly
        }
    }

    /// How many answers are being held back now.
    public var heldAnswers: Int { core.state.withLock { $0.held.count } }

    /// Returns the held answers and stops holding.
    public func releaseHeldAnswers() {
        let held = core.state.withLock { state in
            state.heldPath = nil
            state.holdsNewKeysOnly = false
            defer { state.held.removeAll() }
            return state.held
        }
        for gate in held { gate.signal() }
    }

    /// Answers every request with `fault` (before the script), until called again with nil: the
    /// station's address reaches something else for a while (a captive portal, a misconfigured
    /// front server), health checks included.
    public func answerEverything(with fault: Fault?) { core.state.withLock { $0.standing = fault } }

    /// Answers every request carrying idempotency key `key` with `fault` (before the script), until
    /// called again with nil: one action the server fails on every time, the others going through.
    public func answer(key: String, with fault: Fault?) { core.state.withLock { $0.byKey[key] = fault } }

    /// The requests seen so far: "METHOD PATH KEY".
    public var log: [String] { core.state.withLock { $0.log } }

    /// The bodies of the requests for exactly `method` and `path` seen so far, in order (answered
    /// or not): e.g. what each heartbeat a station sent said.
    public func bodies(_ method: String, _ path: String) -> [[UInt8]] {
        core.state.withLock { state in state.bodies.filter { $0.0 == "\(method) \(path)" }.map(\.1) }
    }

    /// How many times a request arrived while another with the same idempotency key was in flight.
    public var overlaps: Int { core.state.withLock { $0.overlaps } }

    /// Releases the answers held back (their threads would hold the stop), then stops.
    public func stop() {
        releaseHeldAnswers()
        server.stop()
    }
}

/// The proxy's script, log and forwarding, shared with its server's handler threads.
private final class ProxyCore: Sendable {
    let upstream: URL
    let state = Mutex(State())

    struct State {
        var script: [FaultProxy.Fault] = []
        var standing: FaultProxy.Fault?
        var byKey: [String: FaultProxy.Fault] = [:]
        var heldPath: String?
        var holdsNewKeysOnly = false
        var held: [DispatchSemaphore] = []
        /// Every idempotency key seen so far.
        var seenKeys: Set<String> = []
        var log: [String] = []
        /// ("METHOD PATH", body) of each request.
        var bodies: [(String, [UInt8])] = []
        var inFlightKeys: [String: Int] = [:]
        var overlaps = 0
    }

    init(upstream: URL) { self.upstream = upstream }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let key = request.header("idempotency-key") ?? ""
        let (fault, isNewKey) = state.withLock { state -> (FaultProxy.Fault, Bool) in
            state.log.append("\(request.method) \(request.path) \(key)")
            let isNewKey = !key.isEmpty && state.seenKeys.insert(key).inserted
            state.bodies.append(("\(request.method) \(request.path)", request.body))
            if !key.isEmpty {
                if state.inFlightKeys[key, default: 0] > 0 { state.overlaps += 1 }
                state.inFlightKeys[key, default: 0] += 1
            }
            if let standing = state.standing { return (standing, isNewKey) }
            if let fault = state.byKey[key] { return (fault, isNewKey) }
            return (state.script.isEmpty ? .pass : state.script.removeFirst(), isNewKey)
        }
        defer { if !key.isEmpty { state.withLock { $0.inFlightKeys[key, default: 1] -= 1 } } }
        switch fault {
        case .pass where state.withLock({ $0.heldPath == request.path && (!$0.holdsNewKeysOnly || isNewKey) }):
            let answer = forward(request)
            let gate = DispatchSemaphore(value: 0)
            let holding = state.withLock { state in
                guard state.heldPath == request.path else { return false }
                state.held.append(gate)
                return true
            }
            if holding { gate.wait() }
            return answer
        case .pass:
            return forward(request)
        case .status(let status, let retryAfter):
            let body = Array(#"{"error":"injected","message":"fault injected by the test proxy"}"#.utf8)
            return .json(status, body, headers: retryAfter.map { [("Retry-After", $0)] } ?? [])
        case .stall(let seconds):
            Thread.sleep(forTimeInterval: seconds)
            return .json(503, Array(#"{"error":"stalled"}"#.utf8))
        case .holdAnswer(let seconds):
            let answer = forward(request)
            Thread.sleep(forTimeInterval: seconds)
            return answer
        case .answer(let status, let headers, let body):
            return HTTPResponse(status: status, headers: headers.map { ($0.key, $0.value) }, body: Array(body.utf8))
        }
    }

    /// Sends the request on to the real server and returns its answer.
    func forward(_ request: HTTPRequest) -> HTTPResponse {
        var outgoing = URLRequest(url: upstream.appendingPathComponent(request.path))
        outgoing.httpMethod = request.method
        outgoing.httpBody = request.body.isEmpty ? nil : Data(request.body)
        for (name, value) in request.headers where !["host", "content-length", "connection"].contains(name) {
            outgoing.setValue(value, forHTTPHeaderField: name)
        }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<HTTPResponse>(.json(502, Array(#"{"error":"bad_gateway"}"#.utf8)))
        URLSession.shared.dataTask(with: outgoing) { data, response, _ in
            if let http = response as? HTTPURLResponse {
                var headers: [(String, String)] = []
                for (name, value) in http.allHeaderFields {
                    let header = String(describing: name)
                    if ["content-length", "date", "connection"].contains(header.lowercased()) { continue }
                    headers.append((header, String(describing: value)))
                }
                result.withLock {
                    $0 = HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](data ?? Data()))
                }
            }
            done.signal()
        }.resume()
        done.wait()
        return result.withLock { $0 }
    }
}
