import CSQLite
import Foundation

/// The durable-write floor: one-row INSERT transactions straight through SQLite's C API, in WAL
/// mode with synchronous=FULL, on the disk under `directory`. Returns per-commit latencies in ms.
func bareCommitLatencies(directory: String, count: Int) throws -> LatencyStats {
    let path = directory + "/bare-\(UUID().uuidString).sqlite"
    defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
    var handle: OpaquePointer?
    guard sqlite3_open(path, &handle) == SQLITE_OK else { throw BenchError("cannot open \(path)") }
    defer { sqlite3_close(handle) }
    func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
    try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)")
    var insert: OpaquePointer?
    sqlite3_prepare_v2(handle, "INSERT INTO t VALUES (?, ?)", -1, &insert, nil)
    defer { sqlite3_finalize(insert) }
    let payload = [UInt8](repeating: 0x78, count: 200)
    var latencies: [Double] = []
    let start = ContinuousClock.now
    for index in 0..<count {
        let begin = ContinuousClock.now
        try exec("BEGIN IMMEDIATE")
        sqlite3_bind_text(insert, 1, "key-\(index)", -1, nil)
        _ = payload.withUnsafeBytes { sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), nil) }
        guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(handle))) }
        sqlite3_reset(insert)
        try exec("COMMIT")
        let elapsed = ContinuousClock.now - begin
        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    let total = ContinuousClock.now - start
    let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
    return LatencyStats(requests: count, seconds: seconds, latencies: latencies)
}
