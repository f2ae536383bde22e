import Foundation

/// Reads a whole file with POSIX calls, so each failure maps to an ``ImageLoadError`` a person can
/// act on, and a file over `limit` bytes is refused before it is read.
enum FileBytes {
    static func read(path: String, limit: Int) throws(ImageLoadError) -> [UInt8] {
        // Non-blocking, so opening a FIFO returns at once instead of waiting for a writer; only a
        // regular file is then read (O_NONBLOCK changes nothing for one).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ImageLoadError(errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ImageLoadError(errno: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .isDirectory }
        if (info.st_mode & S_IFMT) != S_IFREG { throw .notARegularFile }
        let size = Int(info.st_size)
        if size > limit { throw .fileTooLarge(bytes: size, limit: limit) }

        // st_size is a hint (0 for pipes and /proc files): read until EOF, never past the limit.
        var bytes = [UInt8](repeating: 0, count: max(size, 4096))
        var count = 0
        while true {
            if count == bytes.count {
                if count >= limit { throw .fileTooLarge(bytes: count, limit: limit) }
                bytes.append(contentsOf: repeatElement(0, count: min(count, limit - count + 1)))
            }
            let got = bytes.withUnsafeMutableBytes { buffer in
                Foundation.read(fd, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw ImageLoadError(errno: errno)
            }
            if got == 0 { break }
            count += got
        }
        if count == 0 { throw .empty }
        if count > limit { throw .fileTooLarge(bytes: count, limit: limit) }
        bytes.removeSubrange(count...)
        return bytes
    }
}
