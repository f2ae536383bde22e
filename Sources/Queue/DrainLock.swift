import Foundation

/// The one-drainer-per-database rule, across processes: an exclusive `flock` on a file beside the
/// database. The kernel releases it when the holder closes it or dies, so a crashed drainer never
/// leaves the queue locked.
final class DrainLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock without waiting; nil when another drainer holds it. Any other failure (a lock
    /// file another user owns, a folder in its place, a file system that refuses locks) is thrown
    /// as ``QueueError/drainLock(_:_:)``: it would otherwise look like another drainer, forever.
    init?(path: String) throws(QueueError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .drainLock(path, String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            guard failure == EWOULDBLOCK else { throw .drainLock(path, String(cString: strerror(failure))) }
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
