import Foundation
import Synchronization

/// Notices that any of a set of files (the station's config and its token files, the machine's
/// trust store) changed: their size, modification time or inode, each time ``look()`` runs (the
/// station's ``ConfigReload`` does, once a second). Editors that replace a file and tools that
/// rewrite it in place are both seen; SIGHUP remains the way to say so at once.
///
///     let watcher = ConfigWatcher(files: config.sourceFiles)
///     if watcher.look() { reload() }
///     watcher.watch(newConfig.sourceFiles)
final class ConfigWatcher: Sendable {
    private let state: Mutex<[String: FileStamp?]>

    /// What identifies a version of a file (nil when it cannot be read).
    struct FileStamp: Equatable {
        var size: Int64
        var modified: timespec
        var inode: UInt64

        static func == (a: FileStamp, b: FileStamp) -> Bool {
            a.size == b.size && a.inode == b.inode && a.modified.tv_sec == b.modified.tv_sec
                && a.modified.tv_nsec == b.modified.tv_nsec
        }

        static func of(_ path: String) -> FileStamp? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return FileStamp(size: Int64(info.st_size), modified: info.st_mtim, inode: UInt64(info.st_ino))
        }
    }

    /// Watches `files` as they are now.
    init(files: [String]) {
        state = Mutex(Dictionary(files.map { ($0, FileStamp.of($0)) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Whether any file changed since the last look (or since it was first watched).
    func look() -> Bool {
        state.withLock { stamps in
            var changed = false
            for (path, stamp) in stamps {
                let now = FileStamp.of(path)
                if now != stamp {
                    stamps[path] = now
                    changed = true
                }
            }
            return changed
        }
    }

    /// Watches `files` from now on (after a reload: the token files may have changed).
    func watch(_ files: [String]) {
        state.withLock { stamps in
            stamps = Dictionary(
                files.map { ($0, stamps[$0] ?? FileStamp.of($0)) }, uniquingKeysWith: { first, _ in first })
        }
    }
}
