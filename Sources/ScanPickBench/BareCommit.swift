import CSQLite
import Foundation

/// The durable-write floor: one-row INSERT transactions straight through SQLite's C API, in WAL
/// mode with synchronous=FULL, on the disk under `directory`. Returns per-commit latencies in ms.
func bareCommitLatencies(directory: String, count: Int) throws -> LatencyStats {
    try BareCommits(directory: directory).run(count)
}

/// One database for bare commits, measured in as many runs as asked: a benchmark that takes turns
/// with another keeps the same file, so every run sees a WAL in the same state (a fresh file's
/// first commits also grow it, and cost more).
final class BareCommits {
    private let path: String
    private var handle: OpaquePointer?
    private var insert: OpaquePointer?
    private var next = 0
    private let payload = [UInt8](repeating: 0x78, count: 200)

    init(directory: String) throws {
        path = directory + "/bare-\(UUID().uuidString).sqlite"
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw BenchError("cannot open \(path)") }
        try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)")
        sqlite3_prepare_v2(handle, "INSERT INTO t VALUES (?, ?)", -1, &insert, nil)
    }

    deinit {
        sqlite3_finalize(insert)
        sqlite3_close(handle)
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// Commits `count` rows, one per transaction.
    func run(_ count: Int) throws -> LatencyStats {
        var latencies: [Double] = []
        let start = ContinuousClock.now
        for _ in 0..<count {
            let begin = ContinuousClock.now
            try exec("BEGIN IMMEDIATE")
            sqlite3_bind_text(insert, 1, "key-\(next)", -1, nil)
            next += 1
            _ = payload.withUnsafeBytes { sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), nil) }
            guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(handle))) }
            sqlite3_reset(insert)
            try exec("COMMIT")
            latencies.append(milliseconds(ContinuousClock.now - begin))
        }
        let total = ContinuousClock.now - start
        return LatencyStats(requests: count, seconds: milliseconds(total) / 1000, latencies: latencies)
    }

    private func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
}
