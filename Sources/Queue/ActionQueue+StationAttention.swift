import Foundation
import SQLiteStorage

/// What the running station noticed, kept in the queue's file for `scanpick status` in another
/// process.
extension ActionQueue {
    /// Keeps what the running station (process `pid`) noticed — a failed sync pass, a missing camera,
    /// a config that does not load — where `scanpick status` in another process can show it; an
    /// empty list removes it.
    public func recordStationAttention(_ items: [Attention], pid: Int32) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let value = String(decoding: try encoder.encode(StationAttention(pid: pid, items: items)), as: UTF8.self)
        try database.write { db in
            if items.isEmpty {
                _ = try db.run("DELETE FROM queue_state WHERE key = 'stationAttention'")
            } else {
                _ = try db.run(
                    "INSERT INTO queue_state (key, value) VALUES ('stationAttention', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [value])
            }
        }
    }

    /// What the running station last noticed (``recordStationAttention(_:pid:)``), while the
    /// process that recorded it still runs; empty otherwise.
    public func stationAttention() throws -> [Attention] {
        guard
            let text = try database.read({ db in
                try db.row("SELECT value FROM queue_state WHERE key = 'stationAttention'")?.string("value")
            })
        else { return [] }
        let stored: StationAttention
        do {
            stored = try JSONDecoder().decode(StationAttention.self, from: Data(text.utf8))
        } catch {
            throw QueueError.storage("the station's stored attention cannot be read (\(error))")
        }
        guard stored.pid > 0, kill(stored.pid, 0) == 0 || errno == EPERM else { return [] }
        return stored.items
    }

    private struct StationAttention: Codable {
        var pid: Int32
        var items: [Attention]
    }
}
