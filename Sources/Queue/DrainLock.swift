import Foundation

/// The one-drainer-per-database rule, across processes: an exclusive `flock` on a file beside the
/// database. The kernel releases it when the holder closes it or dies, so a crashed drainer never
/// leaves the queue locked.
final class DrainLock {
    private let descriptor: Int32

    /// Takes the lock without waiting; nil when another drainer holds it.
    init?(path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
