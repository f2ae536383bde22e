import Foundation
import PostgresStorage
import Synchronization

/// A throw-away PostgreSQL cluster for tests: `initdb` into a temporary folder, `pg_ctl start`
/// listening only on a Unix socket in that folder, and removed when the test process exits. Each
/// test takes a database of its own with ``sharedDatabase()``. Run as root (as CI does), the cluster
/// runs as the `postgres` user, because PostgreSQL refuses to run as root.
///
/// Starting a cluster takes a second or more and a `CREATE DATABASE` a fifth of one: the async
/// functions here do both on a thread of their own (``onOwnThread(_:)``), never on one of the two
/// threads of the task pool that a parallel test run shares.
///
///     let connectionString = try await PostgresCluster.sharedDatabase()
public final class PostgresCluster: Sendable {
    public let folder: String
    public let port = 5432
    private let state = Mutex(0)  // databases made so far

    private static let sharedCluster = Mutex<Result<PostgresCluster, any Error>?>(nil)
    private static let allClusters = Mutex<[String]>([])

    /// The cluster shared by every test of this process, started on first use.
    public static func shared() throws -> PostgresCluster {
        try sharedCluster.withLock { cluster in
            if cluster == nil { cluster = Result { try PostgresCluster() } }
            return try cluster!.get()
        }
    }

    /// A fresh database in the cluster shared by every test of this process (started on first use).
    public static func sharedDatabase() async throws -> String {
        try await onOwnThread { try shared().createDatabase() }
    }

    /// Starts a cluster of one's own (for a test that stops and restarts it).
    public static func started() async throws -> PostgresCluster {
        try await onOwnThread { try PostgresCluster() }
    }

    /// A fresh database in this cluster.
    public func newDatabase() async throws -> String {
        try await onOwnThread { try self.createDatabase() }
    }

    /// Starts a cluster of one's own, blocking the calling thread (``started()`` does not).
    public init() throws {
        let template = NSTemporaryDirectory() + "/scanpick-postgres-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw ServerProcessError(message: "cannot make \(template)") }
        folder = String(cString: made)
        Self.allClusters.withLock { clusters in
            if clusters.isEmpty { atexit { PostgresCluster.removeAll() } }
            clusters.append(String(cString: made))
        }
        if getuid() == 0 { try Self.runTool("/bin/chown", ["-R", "postgres:postgres", folder], log: nil) }
        try runAsOwner(
            "initdb", ["-D", folder + "/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
        try startBlocking()
    }

    /// The libpq connection string of the cluster's `postgres` database (or `database`).
    public func connectionString(database: String = "postgres") -> String {
        "host=\(folder) port=\(port) user=postgres dbname=\(database)"
    }

    /// Creates an empty database and returns its connection string, blocking the calling thread
    /// (for synchronous tests; ``newDatabase()`` does not).
    public func createDatabase() throws -> String {
        let number = state.withLock { count in
            count += 1
            return count
        }
        let name = "test_\(getpid())_\(number)"
        let admin = try PostgresConnection(connectionString())
        try admin.execute("CREATE DATABASE \(name)")
        return connectionString(database: name)
    }

    /// Starts the server again and waits until it accepts connections.
    public func start() async throws {
        try await onOwnThread { try self.startBlocking() }
    }

    /// Stops the server at once (`immediate`: like a crash, no checkpoint).
    public func stop() async throws {
        try await onOwnThread {
            try self.runAsOwner("pg_ctl", ["-D", self.folder + "/data", "-m", "immediate", "-w", "stop"])
        }
    }

    private func startBlocking() throws {
        let options = "-k \(folder) -c listen_addresses='' -p \(port) -c max_connections=400 -c shared_buffers=32MB"
        try runAsOwner("pg_ctl", ["-D", folder + "/data", "-l", folder + "/server.log", "-o", options, "-w", "start"])
    }

    // MARK: Processes

    /// Where Debian puts the server programs (not on PATH).
    static let binaries: String = {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap(Int.init).max().map(String.init) ?? "15"
        return "/usr/lib/postgresql/\(newest)/bin"
    }()

    private func runAsOwner(_ tool: String, _ arguments: [String]) throws {
        if getuid() == 0 {
            try Self.runTool(
                "/usr/sbin/runuser", ["-u", "postgres", "--", Self.binaries + "/" + tool] + arguments,
                log: folder + "/tools.log")
        } else {
            try Self.runTool(Self.binaries + "/" + tool, arguments, log: folder + "/tools.log")
        }
    }

    /// Runs a program with its output appended to `log` (not a pipe: the server pg_ctl starts would
    /// keep an inherited pipe open), and names the output in the error if it fails.
    private static func runTool(_ path: String, _ arguments: [String], log: String?) throws {
        let logPath = log ?? "/dev/null"
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)  // a failure shows as a missing log
        }
        guard let output = FileHandle(forWritingAtPath: logPath) else {
            throw ServerProcessError(message: "cannot write \(logPath)")
        }
        defer { try? output.close() }
        _ = try? output.seekToEnd()
        // Only the log is passed on (a ChildProcess closes every other descriptor in the child), so
        // the server pg_ctl leaves running holds nothing of the tests'.
        let process = try ChildProcess(
            path, arguments, standardOutput: output.fileDescriptor, standardError: output.fileDescriptor)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let tail = (try? String(contentsOfFile: logPath, encoding: .utf8))?.suffix(2000) ?? ""
            throw ServerProcessError(
                message: "\(path) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(tail)")
        }
    }

    private static func removeAll() {
        for folder in allClusters.withLock({ $0 }) {
            let pgctl = ["-D", folder + "/data", "-m", "immediate", "-w", "stop"]
            let stop = try? ChildProcess(
                getuid() == 0 ? "/usr/sbin/runuser" : binaries + "/pg_ctl",
                getuid() == 0 ? ["-u", "postgres", "--", binaries + "/pg_ctl"] + pgctl : pgctl)
            stop?.waitUntilExit()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
