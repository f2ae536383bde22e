import ConfigFile
import Foundation
import Testing

/// `chattr +i` and `+a` forbid every write, root's too: the database's access check says so instead
/// of speaking of owners and modes.
@Suite struct FileFlagsTests {
    /// Sets a file's or folder's attribute flags (`FS_IOC_SETFLAGS`; only root may set these two).
    private func setFlags(_ path: String, _ flags: Int) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var value = flags
        return ioctl(descriptor, 0x4008_6602, &value) == 0
    }

    @Test(.enabled(if: geteuid() == 0, "only root may make a file immutable"))
    func anImmutableOrAppendOnlyDatabaseIsSaidToBeSo() throws {
        let pattern = (NSTemporaryDirectory() as NSString).appendingPathComponent("scanpick-flags-XXXXXX")
        var template = Array(pattern.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
        let folder = try #require(made.map { String(cString: $0) })
        let path = folder + "/queue.sqlite"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("SQLite format 3\u{0}".utf8)))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(DatabaseFolder.accessProblem(forDatabase: path) == nil)
        #expect(FileFlags.writeForbidding(path) == nil)

        try #require(setFlags(path, 0x10))  // chattr +i
        let immutable = DatabaseFolder.accessProblem(forDatabase: path) ?? ""
        #expect(setFlags(path, 0))
        #expect(immutable.contains("\(path) is immutable (chattr +i)"), "\(immutable)")
        #expect(!immutable.contains("owned by"))

        try #require(setFlags(folder, 0x20))  // chattr +a on the folder: no -wal or -shm can be made
        let appendOnly = DatabaseFolder.accessProblem(forDatabase: path) ?? ""
        #expect(setFlags(folder, 0))
        #expect(appendOnly.contains("\(folder) is append-only (chattr +a)"), "\(appendOnly)")
        #expect(DatabaseFolder.accessProblem(forDatabase: path) == nil)
    }
}
