import ArgumentParsing
import Foundation

/// Puts a configuration `scanpick setup` made in place under the configuration folder: written
/// beside it, checked as `config check` checks it (again as the services' user when root runs
/// it), owned `root:scanpick` with mode 0640 (the services read it, no one else), then renamed
/// over the target; and the one unit enabled and started.
///
///     let path = try ConfigInstaller(folder: "/etc/scanpick").install("station.json", text: json, force: false) { try check($0) }
struct ConfigInstaller {
    /// The configuration folder (`/etc/scanpick`; tests pass their own).
    var folder: String
    /// Where the package keeps its configs as shipped (``shippedFolder``): a config in `folder` that
    /// still equals its shipped copy is the package's example, no admin's, and is replaced.
    var shipped: String = Self.shippedFolder

    /// The package's copies of `/etc/scanpick`'s configs as it ships them (debian/scanpick.install).
    static let shippedFolder = "/usr/share/scanpick/etc"

    /// Writes `text` to `folder/name` once `check` (given the written file's path) passes. An
    /// existing file is kept unless `force` (an admin's edits are not overwritten by accident), or
    /// left as it is when it already holds `text`; one the package installed and no one edited
    /// (equal to its copy in `shipped`) is replaced.
    @discardableResult
    func install(
        _ name: String, text: String, secret: Bool = false, force: Bool, check: (String) throws -> Void
    ) throws -> String {
        let target = folder + "/" + name
        if !force, FileManager.default.fileExists(atPath: target),
            let existing = FileManager.default.contents(atPath: target), existing == Data(text.utf8)
        {
            try check(target)  // the same file as a run before: nothing to replace
            return target
        }
        let asShipped = FileManager.default.contents(atPath: shipped + "/" + name)
        if !force, FileManager.default.fileExists(atPath: target),
            asShipped == nil || FileManager.default.contents(atPath: target) != asShipped
        {
            throw StationCommandError(
                "\(target) exists already: check it with scanpick config check -c \(target), or replace it with --force"
            )
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = folder + "/." + name + ".new"
        try write(text, to: written, secret: secret)
        do {
            try check(written)
            guard rename(written, target) == 0 else {
                throw StationCommandError("cannot put \(target) in place: \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(written)
            throw error
        }
        return target
    }

    /// `text` in a new file at `path`: mode 0640 and `root:scanpick` (the services read it, root
    /// edits it), or, `secret` (a token file, which the station wants private), 0600 and the
    /// `scanpick` user's; ownership only when root runs this and that user or group exists.
    func write(_ text: String, to path: String, secret: Bool = false) throws {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw StationCommandError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let wrote = bytes[done...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard wrote > 0 else {
                throw StationCommandError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            done += wrote
        }
        guard fchmod(descriptor, secret ? 0o600 : 0o640) == 0, fsync(descriptor) == 0 else {
            throw StationCommandError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let owner = secret ? getpwnam(ServiceUser.name)?.pointee.pw_uid : 0
        if geteuid() == 0, let owner, let group = getgrnam(ServiceUser.name) {
            guard fchown(descriptor, owner, group.pointee.gr_gid) == 0 else {
                throw StationCommandError(
                    "cannot give \(path) to root:\(ServiceUser.name): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// `systemctl enable --now UNIT`, its output the operator's; throws when it fails.
    static func enableAndStart(_ unit: String) throws {
        let systemctl = Process()
        systemctl.executableURL = URL(fileURLWithPath: "/usr/bin/systemctl")
        systemctl.arguments = ["enable", "--now", unit]
        try systemctl.run()
        systemctl.waitUntilExit()
        guard systemctl.terminationStatus == 0 else {
            throw StationCommandError(
                "systemctl enable --now \(unit) failed (exit \(systemctl.terminationStatus)): journalctl -u \(unit) says why"
            )
        }
    }
}
