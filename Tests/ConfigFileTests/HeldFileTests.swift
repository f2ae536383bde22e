import ConfigFile
import Foundation
import Testing

/// Closing any descriptor of a file drops every POSIX lock the process holds on it. The checks a
/// reload runs on the database's path (its header, its chattr flags) read it through ``HeldFile``,
/// so a lock taken through another descriptor, as SQLite takes them, is still held after them.
@Suite struct HeldFileTests {
    /// `F_OFD_GETLK` (Linux; not imported): an open-file-description lock query, which sees this
    /// process's own POSIX locks as conflicts, where `F_GETLK` would not.
    private static let ofdGetLock: Int32 = 36

    /// Whether a write lock on the first byte of `path` is held, asked through a descriptor of its
    /// own (kept open until the answer is in, then closed: only call it last).
    private func isLocked(_ path: String) -> Bool {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        guard fcntl(descriptor, Self.ofdGetLock, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    @Test func checkingADatabaseThisProcessHoldsKeepsItsLocks() throws {
        let path = NSTemporaryDirectory() + "scanpick-held-\(UUID().uuidString).sqlite"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("SQLite format 3\u{0}".utf8)))
        defer { unlink(path) }
        let holder = open(path, O_RDWR | O_CLOEXEC)
        try #require(holder >= 0)
        defer { close(holder) }
        var lock = flock()
        lock.l_type = Int16(F_RDLCK)  // SQLite's shared lock is a read lock
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        try #require(fcntl(holder, F_SETLK, &lock) == 0)
        #expect(HeldFile.isHeld(path))

        #expect(DatabaseFolder.problem(forDatabase: path, configFolder: NSTemporaryDirectory()) == nil)
        #expect(DatabaseFolder.accessProblem(forDatabase: path) == nil)
        #expect(FileFlags.writeForbidding(path) == nil)
        #expect(HeldFile.withDescriptor(path) { $0 } == holder)  // borrowed, not opened

        #expect(isLocked(path), "a check closed a descriptor of the file and dropped the lock")
    }

    @Test func aFileNobodyHoldsIsOpenedAndClosed() throws {
        let path = NSTemporaryDirectory() + "scanpick-held-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not sqlite".utf8)))
        defer { unlink(path) }
        #expect(!HeldFile.isHeld(path))
        let problem = DatabaseFolder.problem(forDatabase: path, configFolder: NSTemporaryDirectory()) ?? ""
        #expect(problem.contains("not a SQLite database"), "\(problem)")
        #expect(!HeldFile.isHeld(path))  // the descriptor it read through is closed
        #expect(HeldFile.withDescriptor(path + "-missing") { $0 } == nil)
    }
}
