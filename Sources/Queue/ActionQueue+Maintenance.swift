import Foundation
import SQLiteStorage
import Timestamps

/// Keeping the queue's file sound: a file deleted or replaced under the station, a rescue copy of
/// what it held, and pruning the sent actions kept for history.
extension ActionQueue {
    /// Throws ``SQLiteError/fileGone(path:reason:)`` when the queue's file was deleted or replaced
    /// while this process has it open: every write is then refused, since its commit would be lost.
    public func checkFileInPlace() throws {
        try database.write { db in try db.checkFileInPlace() }
    }

    /// Copies everything the open queue holds (whatever became of its file's name) into a new file
    /// beside its path, `<database>.rescued-<time>` (its folder made again if it was removed too);
    /// returns that file's path. What a deleted queue held stays reachable for `scanpick queue
    /// salvage --database` or to be put back in its place.
    public func rescue(now: Date = Date()) throws -> String {
        let folder = (database.path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stamp = Timestamp.iso8601(now).replacingOccurrences(of: ":", with: "")
        let copy = database.path + ".rescued-" + stamp
        try database.write { db in try db.backup(to: copy) }
        return copy
    }

    /// Deletes sent actions older than `retention` (they are kept a while for the diagnostics history).
    @discardableResult
    public func pruneSent(olderThan retention: TimeInterval, now: Date = Date()) throws -> Int {
        try database.write { db in
            try db.run(
                "DELETE FROM actions WHERE state = 'sent' AND sent_at < ?", [now.addingTimeInterval(-retention)])
        }
    }
}
