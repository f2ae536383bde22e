import Digest
import Foundation
import Synchronization

/// A real `scanpick serve` process on a free loopback port with its own config and database (a SQLite
/// file, or a fresh database in the test PostgreSQL cluster), for integration tests. Two
/// organisations are configured, with the tokens in ``tokens``.
///
///     let server = try ServerProcess()
///     let client = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
///     try server.stop()
public final class ServerProcess: Sendable {
    /// Bearer tokens by organisation (their SHA-256 is what the config holds).
    public static let tokens = ["acme": "test-token-acme", "globex": "test-token-globex"]

    public let folder: TemporaryDirectory
    public let configPath: String
    public let store: ServerStoreKind
    /// The SQLite file, or the PostgreSQL connection string.
    public let database: String
    private let state = Mutex<State>(State())

    private struct State {
        var process: ChildProcess?
        var baseURL = URL(fileURLWithPath: "/")
        var log = LogBuffer()
        /// The port held while the server is stopped (see ``PortReservation``).
        var heldPort: PortReservation?
    }

    /// Starts a server; `extraConfig` is merged into the config's top level (e.g. retention).
    /// `database` shares an existing database (e.g. two servers on one PostgreSQL database); by
    /// default each server gets a fresh one.
    public init(store: ServerStoreKind = .sqlite, database: String? = nil, extraConfig: [String: Any] = [:])
        async throws
    {
        folder = try TemporaryDirectory("scanpick-server")
        self.store = store
        switch store {
        case .sqlite: self.database = database ?? folder.file("server.sqlite")
        case .postgres:
            if let database {
                self.database = database
            } else {
                self.database = try await PostgresCluster.sharedDatabase()
            }
        }
        var organisations: [String: Any] = [:]
        for (org, token) in Self.tokens { organisations[org] = ["tokenSha256": [SHA256.hex(of: token)]] }
        var config: [String: Any] = [
            "listen": "127.0.0.1:0", "database": self.database, "organisations": organisations,
            "drainSeconds": 0,  // tests stop servers often; the drain's own tests ask for one
        ]
        config.merge(extraConfig) { _, new in new }
        configPath = try folder.write("server.json", bytes: [UInt8](try JSONSerialization.data(withJSONObject: config)))
        try await start()
    }

    /// The server's current address (it changes on restart).
    public var baseURL: URL { state.withLock { $0.baseURL } }

    /// The server's port (it stays the same across restarts).
    public var port: UInt16 { UInt16(baseURL.port ?? 0) }

    /// The server's resident memory now, in bytes (VmRSS), or nil when it is not running.
    public var residentBytes: Int? {
        guard let process = state.withLock({ $0.process }),
            let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    /// Whether the process is still running (it has not crashed).
    public var isRunning: Bool { state.withLock { $0.process?.isRunning ?? false } }

    /// Everything the server has logged so far (standard error).
    public var log: String { state.withLock { $0.log.text } }

    /// Starts the process (again, on the same database and, after the first time, the same port, so
    /// stations configured for it find it again) and waits until it listens.
    public func start() async throws {
        try await onOwnThread { try self.startBlocking() }
    }

    private func startBlocking() throws {
        let port = state.withLock { state in
            state.heldPort?.release()
            state.heldPort = nil
            return state.baseURL.port
        }
        let arguments = ["serve", "--config", configPath] + (port.map { ["--listen", "127.0.0.1:\($0)"] } ?? [])
        let buffer = LogBuffer()
        let errors = Pipe()
        let process = try ChildProcess(
            ProcessRunner.scanpick, arguments, standardError: errors.fileHandleForWriting.fileDescriptor)
        try errors.fileHandleForWriting.close()  // the child's copy is the pipe's end
        buffer.collect(errors)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let address = buffer.listeningAddress {
                // The server must use the database this test meant (a config slip once sent the
                // PostgreSQL runs to a default SQLite file without a word).
                guard buffer.text.contains(#""database":"\#(database)""#) else {
                    process.terminate()
                    throw ServerProcessError(message: "scanpick serve opened another database: \(buffer.text)")
                }
                state.withLock {
                    $0.process = process
                    $0.log = buffer
                    $0.baseURL = URL(string: "\(buffer.listeningScheme)://\(address)")!
                }
                return
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        process.terminate()
        throw ServerProcessError(message: "scanpick serve did not start: \(buffer.text)")
    }

    /// Sends SIGTERM and waits for the exit status.
    @discardableResult
    public func stop() async throws -> Int32 { try await end(signal: SIGTERM) }

    /// Sends `signal` (e.g. SIGKILL for a crash) and waits for the process to end (on a thread of
    /// its own, not the task pool).
    @discardableResult
    public func end(signal: Int32) async throws -> Int32 {
        let running = state.withLock { state in state.process.map { ($0, state.baseURL, state.log) } }
        guard let (process, url, buffer) = running else { return 0 }
        let port = url.host == "127.0.0.1" ? url.port.map(UInt16.init) : nil
        kill(process.processIdentifier, signal)
        let (status, held) = try await onOwnThread {
            // Taken the moment the server lets go of its port (it closes its listening socket
            // first when it stops): a test server of the parallel suite that binds port 0 in the
            // meantime could otherwise be given it, and answer in this one's place.
            let held = port.flatMap { Self.holdOnceFree($0, while: process) }
            process.waitUntilExit()
            buffer.waitForEnd()  // its last lines (`stopped`) are read, not only written
            return (process.terminationStatus, held)
        }
        state.withLock { state in
            state.process = nil
            state.heldPort = held
        }
        return status
    }

    /// Binds `port` as soon as no socket listens on it, trying every 100 µs while `process` runs
    /// (and once after); nil if it could not.
    private static func holdOnceFree(_ port: UInt16, while process: ChildProcess) -> PortReservation? {
        while process.isRunning {
            if let held = PortReservation(port: port) { return held }
            usleep(100)
        }
        return PortReservation(port: port)
    }

    /// Stops and starts again on the same database.
    public func restart() async throws {
        try await stop()
        try await start()
    }

    deinit {
        if let process = state.withLock({ $0.process }), process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        state.withLock { $0.heldPort?.release() }
    }

}

/// A process's output, collected as it arrives.
public final class LogBuffer: Sendable {
    private let data = Mutex(Data())

    /// Signalled once the pipe being collected reaches its end (every writer closed it).
    private let ended = DispatchSemaphore(value: 0)
    /// The pipe being collected.
    private let source = Mutex<Pipe?>(nil)

    public init() {}

    public func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }

    /// The pipe being collected reached its end (or nothing is collected: there is none to wait for).
    public func finish() { ended.signal() }

    /// Holds `pipe` for as long as the buffer lives.
    func keep(_ pipe: Pipe) { source.withLock { $0 = pipe } }

    /// Waits, at most `seconds`, until the pipe being collected has reached its end: after a child's
    /// exit, what it wrote last is then here too. Whether it has.
    @discardableResult
    public func waitForEnd(seconds: Double = 10) -> Bool {
        guard ended.wait(timeout: .now() + seconds) == .success else { return false }
        ended.signal()  // for any later wait
        return true
    }

    public var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

    /// `https` when the listening line says the server speaks TLS, else `http`.
    var listeningScheme: String { text.contains(#""scheme":"https""#) ? "https" : "http" }

    /// The address from the `{"event":"listening","address":"…"}` line, once it is there.
    var listeningAddress: String? {
        for line in text.split(separator: "\n") where line.contains(#""event":"listening""#) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                continue
            }
            return object["address"] as? String
        }
        return nil
    }
}

/// Which database a test server keeps its data in; API tests run against each.
public enum ServerStoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }
}

public struct ServerProcessError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
