import Foundation

/// A small file a configuration names (a token file, the page's secret, a CA certificate), or a
/// configuration itself, read with a reason a person can act on when it cannot be: missing, not
/// readable by this user (with the file's owner and mode, and who we run as), a folder or another
/// non-regular file (a FIFO would block start-up forever), empty, or too large. A file that users
/// other than its owner and this service's group can change is refused too: whoever changes it
/// steers the service (a config's server URL receives the organisation's token).
///
///     let token = try NamedFile.readText("/etc/scanpick/acme.token")  // trimmed
public enum NamedFile {
    /// The most bytes a token or secret file may hold.
    public static let maxBytes = 64 * 1024

    /// The file's text without surrounding white space; throws the reason it cannot be had.
    /// `limit` bounds the bytes read (a CA bundle needs more than a token). `secret`: the file holds
    /// a secret, and a symbolic link is refused, naming the file it points to (whoever can change
    /// the link chooses the secret, and advice about the link's mode would concern another file).
    public static func readText(_ path: String, limit: Int = maxBytes, secret: Bool = false) throws(NamedFileError)
        -> String
    {
        let bytes = try readBytes(path, limit: limit, followingLinks: !secret)
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw NamedFileError(path: path, problem: "is empty") }
        return text
    }

    /// The file's bytes, at most `limit` of them; throws the reason they cannot be had.
    public static func readBytes(_ path: String, limit: Int, followingLinks: Bool = true) throws(NamedFileError)
        -> [UInt8]
    {
        // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever. It has no
        // effect on reading a regular file, the only kind accepted below.
        let descriptor = open(
            path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followingLinks ? 0 : O_NOFOLLOW))
        if descriptor < 0, errno == ELOOP, !followingLinks {
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            throw NamedFileError(
                path: path,
                problem:
                    "is a symbolic link to \(target): a secret is read only from its own file, so name \(target) in the config"
            )
        }
        guard descriptor >= 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw NamedFileError(path: path, problem: problem(errno, path)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw NamedFileError(path: path, problem: "is a folder, not a file")
        default: throw NamedFileError(path: path, problem: "is not a regular file (a FIFO, device or socket)")
        }
        // Judged on the open file itself, so the mode checked is the mode of the bytes read.
        if let problem = othersMayChange(info, descriptor: descriptor, path: path) {
            throw NamedFileError(path: path, problem: problem, othersMayChange: true)
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

    /// Why users other than the file's owner and this service's group can change it, or nil: write
    /// permission for every user, for a group the service does not run as, or through an access
    /// control list (whose mask then shows in the group bits).
    static func othersMayChange(_ info: stat, descriptor: Int32, path: String) -> String? {
        let mode = "mode \(String(info.st_mode & 0o7777, radix: 8).leftPadded(to: 4))"
        if info.st_mode & S_IWOTH != 0 {
            return "can be changed by every user of this machine (\(mode)): run `chmod o-w \(path)`"
        }
        guard info.st_mode & S_IWGRP != 0 else { return nil }
        if hasAccessControlList(descriptor) {
            return "can be changed by other users through its access control list (\(mode)): run `setfacl -b \(path)`"
        }
        guard info.st_gid != getegid() else { return nil }
        let (group, ours) = (groupName(info.st_gid), groupName(getegid()))
        return
            "can be changed by group \(group) (\(mode)), not only by this service's group \(ours): run `chmod g-w \(path)` (or `chgrp \(ours) \(path)`)"
    }

    /// Whether the open file has a POSIX access control list (`system.posix_acl_access`).
    /// `fgetxattr` is C library API that Swift's Glibc module does not import (`sys/xattr.h`), so
    /// it is looked up once by name.
    private static func hasAccessControlList(_ descriptor: Int32) -> Bool {
        guard let fgetxattr = Self.fgetxattr else { return false }
        return fgetxattr(descriptor, "system.posix_acl_access", nil, 0) > 0
    }

    private typealias GetAttribute = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int

    private static let fgetxattr: GetAttribute? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fgetxattr").map {
        unsafeBitCast($0, to: GetAttribute.self)
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
    public static func ownership(_ path: String) -> String {
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
    /// The file could be read but is refused: users other than its owner and this service's group
    /// can change it (a message then says so, not that it "cannot be read").
    public var othersMayChange = false
    public var description: String { "\(path) \(problem)" }

    public init(path: String, problem: String, othersMayChange: Bool = false) {
        self.path = path
        self.problem = problem
        self.othersMayChange = othersMayChange
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
