import Foundation

/// Looks into a file that this process may have open as a SQLite database without ever closing a
/// descriptor of it. Closing *any* descriptor of a file drops *every* POSIX lock the process holds
/// on it, SQLite's included (sqlite.org/howtocorrupt.html, 2.2): a running station that opened its
/// own queue file to read a header lost the shared lock that tells other processes it still uses
/// the -wal, and the next `scanpick queue` to close deleted the -wal under it.
///
/// So a descriptor the process already holds for the file is borrowed (and left open); only a file
/// nobody here holds is opened and closed. When `/proc/self/fd` cannot be read, nothing is opened.
///
///     let header = HeldFile.withDescriptor(path) { descriptor in … pread(descriptor, …) … }
public enum HeldFile {
    /// `body`'s answer on a descriptor of the file at `path` (not following a FIFO's wait), or nil
    /// when the file cannot be read or it may be held without this process being able to tell.
    public static func withDescriptor<T>(_ path: String, _ body: (Int32) -> T?) -> T? {
        var file = stat()
        guard stat(path, &file) == 0 else { return nil }
        switch heldDescriptor(device: file.st_dev, inode: file.st_ino) {
        case .held(let descriptor):
            return body(descriptor)
        case .unknown:
            return nil
        case .notHeld:
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            return body(descriptor)
        }
    }

    /// Whether this process holds a descriptor of the file at `path` (true when it cannot tell).
    public static func isHeld(_ path: String) -> Bool {
        var file = stat()
        guard stat(path, &file) == 0 else { return false }
        if case .notHeld = heldDescriptor(device: file.st_dev, inode: file.st_ino) { return false }
        return true
    }

    private enum Holding {
        case held(Int32)
        case notHeld
        case unknown
    }

    /// A descriptor of this process for the file with `device` and `inode`, found by `stat`ing the
    /// links in `/proc/self/fd` (which opens none of their files).
    private static func heldDescriptor(device: dev_t, inode: ino_t) -> Holding {
        guard let folder = opendir("/proc/self/fd") else { return .unknown }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let descriptor = Int32(name) else { continue }  // "." and ".."
            var info = stat()
            if stat("/proc/self/fd/\(name)", &info) == 0, info.st_dev == device, info.st_ino == inode {
                return .held(descriptor)
            }
        }
        return .notHeld
    }
}
