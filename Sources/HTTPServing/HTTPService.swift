import Lifecycle
import Logging
import Synchronization

/// An ``HTTPServer`` as a service of a ``ServiceGroup``: it listens when the group starts it (an
/// address in use fails the start, naming it and `explain`'s config key), and when its task is
/// cancelled it stops taking connections, finishes the requests in flight and closes.
///
///     let api = HTTPService("api", listen: address, logger: logger, router: { api.route($0) })
///     let group = ServiceGroup([api], logger: logger)
public final class HTTPService: Service {
    public let name: String
    private let listen: @Sendable () throws -> HTTPServer
    private let onListening: @Sendable (HTTPServer) -> Void
    private let server = Mutex<HTTPServer?>(nil)

    /// `explain` words a failure to listen for the operator (which config key set the address);
    /// `onListening` hears the server once it listens (to log or print its address).
    public init(
        _ name: String, listen address: ListenAddress, limits: HTTPServerLimits = HTTPServerLimits(),
        tls: TLSIdentity? = nil, logger: Logger, checkHead: HTTPServer.HeadCheck? = nil,
        explain: @escaping @Sendable (HTTPServerError) -> any Error = { $0 },
        onListening: @escaping @Sendable (HTTPServer) -> Void = { _ in }, router: @escaping HTTPServer.Router
    ) {
        self.name = name
        self.onListening = onListening
        listen = {
            do throws(HTTPServerError) {
                return try HTTPServer(
                    listen: address, limits: limits, tls: tls, logger: logger, checkHead: checkHead, router: router)
            } catch {
                throw explain(error)
            }
        }
    }

    /// The running server (nil before the start and after the stop).
    public var running: HTTPServer? { server.withLock { $0 } }

    /// How long the longest request handler now running has run, in nanoseconds (0: none runs, or
    /// not listening), for a watchdog.
    public var longestRunningHandler: UInt64 { running?.longestRunningHandler ?? 0 }

    public func start() async throws {
        let started = try await BlockingExecutor.shared.run { [listen] in try listen() }
        server.withLock { $0 = started }
        onListening(started)
    }

    public func run() async throws {
        await waitUntilCancelled()
        guard let stopping = server.withLock({ $0.take() }) else { return }
        await BlockingExecutor.shared.run { stopping.stop() }  // waits for the requests in flight
    }
}
