import Foundation

/// A tmpfs of a few MiB mounted on a fresh folder (root only), unmounted and removed when the value
/// is deinitialised: a disk that fills as a real one does (`ENOSPC`, SQLite's `SQLITE_FULL`).
///
///     let disk = try SmallFilesystem()
///     let server = try await ServerProcess(database: disk.file("server.sqlite"))
///     try disk.fill()   // every later write that needs a new block fails
///     try disk.free()
public final class SmallFilesystem: Sendable {
    /// Whether this process may mount one (tests that need it are enabled only then).
    public static var canMount: Bool { getuid() == 0 }

    private let folder: TemporaryDirectory
    /// Where it is mounted.
    public let path: String

    public init(megabytes: Int = 8) throws {
        folder = try TemporaryDirectory("scanpick-small-disk")
        path = folder.file("disk")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(megabytes)m,mode=0700") == 0 else {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
    }

    /// The path of `name` on it.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Fills what is left of it with a file of its own (`free()` removes it).
    public func fill() throws {
        let descriptor = open(file("filler"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xA5, count: 64 << 10)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else { throw CocoaError(.fileWriteOutOfSpace, userInfo: [NSFilePathErrorKey: path]) }
    }

    /// Removes what `fill()` wrote.
    public func free() throws { try FileManager.default.removeItem(atPath: file("filler")) }
}
