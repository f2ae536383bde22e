import Foundation

extension SystemTrust {
    /// Writes `certificates`, re-encoded (never the operator's file as it is: no key, no link, no
    /// stray text), to `target` as a new regular file of mode 0644. The file is written beside the
    /// target and renamed over it, so a reader sees the old file or the whole new one, and a
    /// symbolic link at `target` is replaced, not followed.
    public static func install(_ certificates: [PEMCertificate], as target: String) throws(InstallError) {
        let temporary = "\(target).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw InstallError(path: temporary, errno: errno) }
        let bytes = Array(certificates.map(\.pem).joined().utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let code = errno
                close(descriptor)
                unlink(temporary)
                throw InstallError(path: temporary, errno: code)
            }
            written += count
        }
        // The umask may have narrowed the mode: the bundle tools read it as any user.
        let synced = fchmod(descriptor, 0o644) == 0 && fsync(descriptor) == 0
        let code = errno
        close(descriptor)
        guard synced, rename(temporary, target) == 0 else {
            let failure = synced ? errno : code
            unlink(temporary)
            throw InstallError(path: target, errno: failure)
        }
    }

    /// Whether OpenSSL parses each certificate (`openssl x509 -noout`), the check the shape test
    /// of ``PEMCertificate`` cannot make; `nil` when this machine has no `openssl` command.
    public static func opensslRefusal(of certificates: [PEMCertificate]) throws -> String? {
        let openssl = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: openssl) else { return nil }
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("scanpick-ca-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: scratch) }
        for (index, certificate) in certificates.enumerated() {
            try Data(certificate.pem.utf8).write(to: scratch)
            let check = Process()
            check.executableURL = URL(fileURLWithPath: openssl)
            check.arguments = ["x509", "-noout", "-in", scratch.path]
            // No pipe to read: Foundation's read of one traps on EINTR. openssl's own words are not
            // needed to say which certificate it refused.
            check.standardInput = FileHandle.nullDevice
            check.standardOutput = FileHandle.nullDevice
            check.standardError = FileHandle.nullDevice
            try check.run()
            check.waitUntilExit()
            guard check.terminationStatus == 0 else {
                let status = check.terminationStatus
                return "openssl refuses certificate \(index + 1) (`openssl x509 -noout` exits \(status))"
            }
        }
        return nil
    }

    /// Why a CA file could not be written to the trust store's folder.
    public struct InstallError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var errno: Int32
        public var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }
    }
}
