import Foundation

/// Where scanpick may create a missing folder for a SQLite database: inside the folder of the
/// config that names it, or the packaged data folder. Anywhere else a missing folder is more likely
/// a typo (`/var/lib/scanpik/…`) than a wish, so the operator is told which folder is missing.
///
///     if let problem = DatabaseFolder.problem(forDatabase: path, configFolder: "/etc/scanpick") { … }
public enum DatabaseFolder {
    /// The packaged install's data folder (made by its tmpfiles.d entry).
    public static let packagedDataFolder = "/var/lib/scanpick"

    /// Why the database at `path` cannot be opened as configured, or nil when its folder exists or
    /// may be created. `written` is the value as the operator wrote it (before it was resolved
    /// against the config's folder), which alone still shows a trailing `/`.
    public static func problem(forDatabase path: String, configFolder: String, written: String? = nil) -> String? {
        var info = stat()
        if (written ?? path).hasSuffix("/") || (stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR) {
            return
                "names the folder \(path), not a database file: name the file inside it (e.g. \((path as NSString).appendingPathComponent("scanpick.sqlite")))"
        }
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            return "names \(path), which is not a regular file"
        }
        if stat(path, &info) == 0, info.st_size > 0, let header = header(of: path), header != sqliteHeader {
            return
                "names \(path), which is not a SQLite database (it holds other data): name the database's own file, or a path where none exists yet"
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            return isFolder.boolValue ? nil : "is in \(folder), which is a file, not a folder"
        }
        let roots = [URL(fileURLWithPath: configFolder).standardizedFileURL.path, packagedDataFolder]
        if roots.contains(where: { folder == $0 || folder.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) {
            return nil
        }
        return
            "is in \(folder), which does not exist: create it (mkdir -p \(folder)) or correct the path; scanpick creates a database's folder only inside the config's folder or \(packagedDataFolder)"
    }

    /// The first bytes of every SQLite database file.
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    /// The first 16 bytes of the file at `path`, or nil when it cannot be read (an access problem is
    /// ``accessProblem(forDatabase:)``'s to say). Read through ``HeldFile``: a database this process
    /// has open (a running station's, at a reload) keeps its SQLite locks.
    private static func header(of path: String) -> [UInt8]? {
        HeldFile.withDescriptor(path) { descriptor in
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 16, 0) }
            return count >= 0 ? Array(bytes.prefix(count)) : nil
        }
    }

    /// Why this process cannot write the SQLite database at `path` (or create it), with the owner and
    /// mode of what stands in the way and who we run as; nil when it can. SQLite itself would say
    /// only "attempt to write a readonly database", and only at the first write.
    /// Run as root on a database (or its folder) another user owns — the service's — it refuses too:
    /// SQLite would leave `-wal` and `-shm` files only root can write, and the service could no
    /// longer open its own database.
    public static func accessProblem(forDatabase path: String) -> String? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        // An immutable or append-only file or folder cannot be written by anyone, root included:
        // its owner and mode are beside the point.
        for target in [path, folder] where access(target, F_OK) == 0 {
            guard let flag = FileFlags.writeForbidding(target) else { continue }
            return
                "cannot write the database \(path): \(target) is \(flag), so no user can write it: remove the attribute (chattr -i -a \(target))"
        }
        if geteuid() == 0 {
            var info = stat()
            for target in [path, folder] where stat(target, &info) == 0 {
                guard info.st_uid != 0 else { break }
                let owner = NamedFile.userName(info.st_uid)
                return
                    "the database \(path) belongs to \(owner): run this as that user (sudo -u \(owner) scanpick …); as root, SQLite would leave files \(owner) cannot write and lock the service out of its own database"
            }
        }
        // SQLite makes -wal and -shm files beside the database: the folder must be writable too.
        for (target, mode) in [(path, R_OK | W_OK), (folder, W_OK | X_OK)] where access(target, F_OK) == 0 {
            guard access(target, mode) != 0 else { continue }
            return
                "cannot write the database \(path): \(target) is \(NamedFile.ownership(target)) and this process runs as \(NamedFile.currentUser()) (the database and its folder must be writable by that user)"
        }
        return nil
    }
}
