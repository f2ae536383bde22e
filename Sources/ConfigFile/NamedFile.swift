import Foundation

/// A small file a configuration names (a token file, the page's secret, a CA certificate), read
/// with a reason a person can act on when it cannot be: missing, not readable by this user (with
/// the file's owner and mode, and who we run as), a folder or another non-regular file (a FIFO
/// would block start-up forever), empty, or too large.
///
///     let token = try NamedFile.readText("/etc/scanpick/acme.token")  // trimmed
public enum NamedFile {
    /// The most bytes a token or secret file may hold.
    public static let maxBytes = 64 * 1024

    /// The file's text without surrounding white space; throws the reason it cannot be had.
    /// `limit` bounds the bytes read (a CA bundle needs more than a token).
    public static func readText(_ path: String, limit: Int = maxBytes) throws(NamedFileError) -> String {
        let bytes = try readBytes(path, limit: limit)
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw NamedFileError(path: path, problem: "is empty") }
        return text
    }

    /// The file's bytes, at most `limit` of them; throws the reason they cannot be had.
    public static func readBytes(_ path: String, limit: Int) throws(NamedFileError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever. It has no
        // effect on reading a regular file, the only kind accepted below.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw NamedFileError(path: path, problem: "is a folder, not a file")
        default: throw NamedFileError(path: path, problem: "is not a regular file (a FIFO, device or socket)")
        }
        let tooLarge = "is over \(limit / 1024) KiB: too large for this setting"
        guard info.st_size <= limit else { throw NamedFileError(path: path, problem: tooLarge) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes[count...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw NamedFileError(path: path, problem: tooLarge) }
        return Array(bytes[..<count])
    }

    private static func problem(_ code: Int32, _ path: String) -> String {
        switch code {
        case ENOENT: "does not exist"
        case EACCES, EPERM:
            "is not readable by this user (permission denied: \(ownership(path)); this process runs as \(currentUser()))"
        default: "gives an error: \(String(cString: strerror(code)))"
        }
    }

    /// "owned by root:scanpick, mode 0640" (or what can be said when the folder is not searchable).
    static func ownership(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "its folder cannot be searched by this user" }
        return
            "owned by \(userName(info.st_uid)):\(groupName(info.st_gid)), mode \(String(info.st_mode & 0o7777, radix: 8).leftPadded(to: 4))"
    }

    /// The name of the user this process runs as (effective id).
    public static func currentUser() -> String { userName(geteuid()) }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }

    static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return String(gid) }
        return String(cString: name)
    }
}

/// Why a file a configuration names cannot be read.
public struct NamedFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String { "\(path) \(problem)" }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
