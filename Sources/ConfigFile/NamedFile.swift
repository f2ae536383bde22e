import Foundation

/// A small file a configuration names (a token file, the page's secret), read with a reason a
/// person can act on when it cannot be: missing, not readable by this user (with the file's owner
/// and mode, and who we run as), a folder, empty, or too large.
///
///     let token = try NamedFile.readText("/etc/scanpick/acme.token")  // trimmed
public enum NamedFile {
    /// The most bytes such a file may hold.
    public static let maxBytes = 64 * 1024

    /// The file's text without surrounding white space; throws the reason it cannot be had.
    public static func readText(_ path: String) throws(NamedFileError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw NamedFileError(path: path, problem: "is a folder, not a file")
        }
        guard info.st_size <= maxBytes else {
            throw NamedFileError(path: path, problem: "is \(info.st_size) bytes: too large for a token or secret")
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes[count...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
            if got == 0 { break }
            count += got
        }
        guard count <= maxBytes else { throw NamedFileError(path: path, problem: "is too large for a token or secret") }
        let text = String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw NamedFileError(path: path, problem: "is empty") }
        return text
    }

    private static func problem(_ code: Int32, _ path: String) -> String {
        switch code {
        case ENOENT: "does not exist"
        case EACCES, EPERM: "permission denied: \(ownership(path)); this process runs as \(currentUser())"
        default: String(cString: strerror(code))
        }
    }

    /// "owned by root:scanpick, mode 0640" (or what can be said when the folder is not searchable).
    static func ownership(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "its folder cannot be searched by this user" }
        return
            "owned by \(userName(info.st_uid)):\(groupName(info.st_gid)), mode \(String(info.st_mode & 0o7777, radix: 8).leftPadded(to: 4))"
    }

    static func currentUser() -> String { userName(geteuid()) }

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
