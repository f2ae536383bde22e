import Foundation
import SQLiteStorage
import Storage

/// The station's durable outbox of taps and scans, in SQLite (WAL, synchronous=FULL). `enqueue`
/// returns only when the action is on disk, and it can commit the caller's own local change in the
/// same transaction (the pick list's row flips and its action is queued together, or neither).
///
///     let queue = try ActionQueue(path: "var/station.sqlite")
///     let id = try queue.enqueue(.pick(org: "acme", pickTaskId: "t1", location: "A1", qty: 1, worker: "ana")) { db in
///         _ = try db.run("UPDATE pick_list_tasks SET qty_picked = qty_picked + 1 WHERE id = ?", ["t1"])
///     }
///
/// This file opens the queue. Its other parts, each an extension in a file of its own:
/// `ActionQueue+Enqueue` (queuing an action, alone or with the caller's change),
/// `ActionQueue+Reads` (what status screens and the pick list read), `ActionQueue+Drain` (the
/// drainer's claim and its record of each try), `ActionQueue+Pauses`, `ActionQueue+FailingHead`
/// (the action the server keeps failing), `ActionQueue+DeadLetters` (support's retry and clear, and
/// the station log), `ActionQueue+Park`, `ActionQueue+StationAttention` and
/// `ActionQueue+Maintenance` (a replaced file, a rescue copy, pruning); salvage and import are in
/// `QueueSalvage`.
public final class ActionQueue: Sendable {
    public let database: DatabaseQueue

    /// Opens the queue database, creating or migrating its tables; `migrations` adds the tables of
    /// whoever shares the file (the station's pick-list cache). A quick integrity check runs first:
    /// a damaged queue is refused with ``QueueError/damaged(_:_:)``, which says how to salvage it.
    public init(path: String, extraMigrations: [Migration] = []) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.makePrivate(path)
        try Self.checkIntegrity(path)
        database = try DatabaseQueue(path: path, migrations: QueueSchema.migrations + extraMigrations)
    }

    /// The queue's files hold every key and payload: they are the station user's alone. The database
    /// is created 0600 (SQLite gives its -wal and -shm files the database's mode), and files an
    /// older scanpick left readable by others are tightened. A file that exists is never opened
    /// here: closing a descriptor of a queue this process already has open would drop SQLite's
    /// locks on it (see `HeldFile`).
    private static func makePrivate(_ path: String) throws(QueueError) {
        if access(path, F_OK) != 0 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 || errno == EEXIST else {
                throw .storage("cannot create \(path): \(String(cString: strerror(errno)))")
            }
            if descriptor >= 0 { close(descriptor) }
        } else if access(path, R_OK | W_OK) != 0 {
            throw .storage("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        for file in [path, path + "-wal", path + "-shm", path + ".drain-lock"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            guard chmod(file, info.st_mode & 0o700) == 0 else {
                throw .storage("\(file) is readable by other users and cannot be made private (chmod 600 \(file))")
            }
        }
    }

    /// `PRAGMA quick_check` on its own read-only connection, before anything writes to the file: a
    /// damaged queue (and its -wal, which may hold the last actions) is left exactly as it was found,
    /// for salvage.
    private static func checkIntegrity(_ path: String) throws(QueueError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let findings: [String]
        do {
            let db = try Database(readingOnly: path)
            findings = try db.rows("PRAGMA quick_check(5)").compactMap { try $0.optionalString("quick_check") }
        } catch {
            guard let error = error as? SQLiteError, error.isDamage, case .sqlite(_, let message, _) = error else {
                throw .storage(String(describing: error))  // not damage (e.g. permissions): said as it is
            }
            throw .damaged(path, message)  // SQLITE_CORRUPT, SQLITE_NOTADB
        }
        guard findings == ["ok"] else { throw .damaged(path, findings.joined(separator: "; ")) }
    }

    /// SQLite's `data_version`: it changes when another connection (another process) commits.
    public func dataVersion() throws -> Int {
        try database.read { db in try db.row("PRAGMA data_version")?.int("data_version") ?? 0 }
    }
}
