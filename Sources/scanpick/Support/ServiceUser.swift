import ArgumentParsing
import ConfigFile
import Foundation

/// The system user the packaged services run as (`User=scanpick`). A config that root can read
/// but this user cannot fails only when the service starts, so `config check` run as root checks
/// again as this user.
enum ServiceUser {
    static let name = "scanpick"

    /// Whom `config check` checks again as: the services' user, when root runs it and the user exists.
    static func defaultForCheck() -> String? {
        geteuid() == 0 && getpwnam(name) != nil ? name : nil
    }

    /// Runs `scanpick config check` on `path` again as `user` (through `setpriv`, as systemd's
    /// `User=` would: that user's ids and groups); throws that run's message when it fails.
    static func check(_ path: String, kind: String, as user: String) throws {
        guard let entry = getpwnam(user) else { throw UsageError("--as-user: there is no user named \(user)") }
        guard entry.pointee.pw_uid != geteuid() else { return }
        guard geteuid() == 0 else { throw UsageError("--as-user needs root (it switches to \(user))") }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let rerun = Process()
        rerun.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        rerun.arguments = [
            "--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", "--init-groups",
            executable ?? CommandLine.arguments[0], "config", "check", "--config", absolute, "--kind", kind,
        ]
        let errors = Pipe()
        rerun.standardOutput = FileHandle.nullDevice
        rerun.standardError = errors
        try rerun.run()
        let message = String(
            decoding: DescriptorReading.readToEnd(errors.fileHandleForReading.fileDescriptor), as: UTF8.self)
        rerun.waitUntilExit()
        guard rerun.terminationStatus != 0 else { return }
        let reasons = message.split(separator: "\n").filter { !$0.hasPrefix("warning: ") && !$0.hasPrefix("Run '") }
            .map { $0.replacingOccurrences(of: "scanpick config check: ", with: "") }
        throw ServiceUserRefusal(
            description:
                "valid for \(NamedFile.currentUser()), but not for \(user), whom the services run as: \(reasons.joined(separator: "; "))"
        )
    }
}

/// A config the services' user cannot use, in the words of that user's check.
struct ServiceUserRefusal: Error, CustomStringConvertible {
    let description: String
}
