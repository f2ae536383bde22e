import Foundation

/// Reads a child's pipes without Foundation's `readDataToEndOfFile()` and `availableData`: both end
/// the test process with a `try!` when a signal interrupts the `read` (EINTR), which took a whole
/// CI run down once. These retry the interrupted read, as every reader in the product does.
public enum PipeReading {
    /// Everything the pipe holds until its writers close it.
    public static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        while true {
            let chunk = readOnce(handle)
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// What one `read` returns: what is there now, or nothing at end of file or on an error.
    public static func readOnce(_ handle: FileHandle) -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            return got > 0 ? Data(buffer[..<got]) : Data()
        }
    }
}

extension LogBuffer {
    /// Appends whatever the pipe's read end receives, as it arrives, until the child closes it: read
    /// by a thread of its own, not a `readabilityHandler`, whose dispatch sources torn down by many
    /// tests at once corrupt libdispatch's epoll bookkeeping on Linux (swift-corelibs-libdispatch
    /// issue 949; a CI run died of it). The buffer keeps the pipe (its read end open) for as long
    /// as it lives: a child writing to a pipe nobody holds any more would die of SIGPIPE.
    public func collect(_ pipe: Pipe) {
        keep(pipe)
        let handle = pipe.fileHandleForReading
        let reader = Thread { [self] in
            while true {
                let chunk = PipeReading.readOnce(handle)
                if chunk.isEmpty { break }
                append(chunk)
            }
            finish()
        }
        reader.stackSize = 1 << 17
        reader.start()
    }
}
