import Dispatch
import Foundation
import Synchronization

/// Notices that any of the station's configuration files (the config, its token files) changed:
/// their size, modification time or inode, looked at once a second. Editors that replace a file
/// and tools that rewrite it in place are both seen; SIGHUP remains the way to say so at once.
///
///     let watcher = ConfigWatcher(files: config.sourceFiles) { service.reload() }
///     watcher.watch(newConfig.sourceFiles)
final class ConfigWatcher: @unchecked Sendable {
    private let state: Mutex<[String: FileStamp?]>
    // Set once in `init`, never changed; cancelling a dispatch source is thread-safe.
    private let timer: any DispatchSourceTimer

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

    init(files: [String], interval: TimeInterval = 1, onChange: @escaping @Sendable () -> Void) {
        state = Mutex(Dictionary(files.map { ($0, FileStamp.of($0)) }, uniquingKeysWith: { first, _ in first }))
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let changed = self.state.withLock { stamps in
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
            if changed { onChange() }
        }
        timer.resume()
    }

    /// Watches `files` from now on (after a reload: the token files may have changed).
    func watch(_ files: [String]) {
        state.withLock { stamps in
            stamps = Dictionary(
                files.map { ($0, stamps[$0] ?? FileStamp.of($0)) }, uniquingKeysWith: { first, _ in first })
        }
    }

    func stop() { timer.cancel() }

    deinit { stop() }
}
