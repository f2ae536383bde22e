import Foundation
import Synchronization

/// Buffered, thread-safe writing to standard output or standard error. Output is buffered (one
/// write per 64 KiB); standard error is written at once so messages are never held back.
final class StandardStream: Sendable {
    static let output = StandardStream(descriptor: STDOUT_FILENO, bufferLimit: 64 << 10)
    static let error = StandardStream(descriptor: STDERR_FILENO, bufferLimit: 0)

    private let descriptor: Int32
    private let bufferLimit: Int
    private let buffer = Mutex<[UInt8]>([])

    private init(descriptor: Int32, bufferLimit: Int) {
        self.descriptor = descriptor
        self.bufferLimit = bufferLimit
    }

    /// Whether this stream is a terminal (progress lines only go to terminals).
    var isTerminal: Bool { isatty(descriptor) == 1 }

    func write(_ text: String) { write(bytes: Array(text.utf8)) }

    func write(bytes: [UInt8]) {
        buffer.withLock { pending in
            pending += bytes
            if pending.count > bufferLimit {
                Self.writeAll(pending, to: descriptor); pending.removeAll(keepingCapacity: true)
            }
        }
    }

    func flush() {
        buffer.withLock { pending in
            Self.writeAll(pending, to: descriptor)
            pending.removeAll(keepingCapacity: true)
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }  // a closed pipe: nothing more can be said
            offset += written
        }
    }
}
