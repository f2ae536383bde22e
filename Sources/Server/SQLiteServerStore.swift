import Foundation
import Metrics
import SQLiteStorage
import Storage

/// SQLite: every write goes through one connection's group commit, so transactions never overlap.
struct SQLiteServerStore: ServerStore {
    let queue: DatabaseQueue
    var commitRunningFor: UInt64 { queue.commitRunningFor }
    var commitRoundSizes: HistogramCounts? { queue.commitRoundSizes }
    /// A connection of its own for reads (and the readiness probe), so that they run beside the
    /// writes (WAL) instead of waiting for them.
    let reader: DatabaseQueue
    var dialect: SQLDialect { .sqlite }

    init(path: String) throws {
        queue = try DatabaseQueue(path: path, migrations: ServerSchema.sqlite)
        reader = try DatabaseQueue(path: path)
    }

    func write<T: Sendable>(_ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T) throws -> T {
        try Self.inDomainTerms { try queue.groupCommit(priority) { db in try body(db) } }
    }

    var writesLater: Bool { true }

    func writeLater<T: Sendable>(
        _ priority: WritePriority, _ body: @escaping (any SQLConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        queue.groupCommit(priority, { db in try body(db) }) { result in
            completion(result.mapError(Self.domainError))
        }
    }

    func read<T: Sendable>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try Self.inDomainTerms { try reader.read { db in try body(db) } }
    }

    func checkReady() throws -> [String] {
        try Self.inDomainTerms {
            try reader.read { db in
                try db.checkFileInPlace()  // a deleted file still answers reads, and takes no write
                return try Migration.applied(in: db)
            }
        }
    }

    /// A write that fits in pages the -wal already holds can pass while every larger one fails, so
    /// the database's filesystem must also have ``roomNeeded`` bytes free.
    func checkWritable() throws {
        var info = statvfs()
        let folder = (queue.path as NSString).deletingLastPathComponent
        if statvfs(folder.isEmpty ? "." : folder, &info) == 0 {
            let free = UInt64(info.f_bavail) &* UInt64(info.f_frsize)
            guard free >= Self.roomNeeded else {
                throw PickingError.storageFull("\(free) bytes free on the filesystem of \(queue.path)")
            }
        }
        _ = try Self.inDomainTerms { try queue.groupCommit(.quick) { db in try Self.probeWrite(db) } }
    }

    /// Bytes a filesystem must have free before a server whose writes failed for want of room says
    /// it is ready again.
    static let roomNeeded: UInt64 = 1 << 20

    /// SQLite's failures as the domain's: one writer at a time, so a constraint never arbitrates
    /// between requests here. A full disk or failed storage is said as such (503, the client
    /// retries); every other engine failure is the store's own (500, logged).
    static func domainError(_ error: any Error) -> any Error {
        switch error {
        case let error as SQLiteError where error.isFull: PickingError.storageFull(String(describing: error))
        case let error as SQLiteError where error.isStorageFailure:
            PickingError.storageFailed(String(describing: error))
        case is SQLiteError, is StorageError: PickingError.storage(String(describing: error))
        default: error
        }
    }
}
