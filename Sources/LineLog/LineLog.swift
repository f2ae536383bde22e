internal import CThreadName
import Foundation
import Synchronization

/// Log lines written to a file descriptor (standard error by default) by a thread of their own, a
/// batch per write: whoever logs — a thread serving HTTP, the thread committing to the database —
/// never waits for a slow reader of the log. The thread gathers lines for ``gathering`` after the
/// first one before it writes, so under load it wakes and writes a few hundred times a second
/// whatever the rate of lines, and a logger wakes it only for the first line of a batch. At most
/// `capacity` lines wait; past that, lines are dropped and counted, and a
/// `{"event":"log_lines_dropped","count":N}` line says so once there is room again. ``flush()``
/// waits until everything logged so far is written (call it before exit).
///
///     let log = LineLog()
///     log.write(#"{"event":"listening"}"#)
///     log.flush()
public final class LineLog: Sendable {
    private struct State {
        var lines: [String] = []
        var dropped = 0
        var written = 0
        var queued = 0
        /// Writes made so far (each one a batch).
        var batches = 0
        /// The writing thread waits on `ready` (the next line must signal it, once).
        var writerWaits = false
    }

    private let descriptor: Int32
    private let capacity: Int
    /// How long the writing thread lets lines gather after the first one of a batch. Waking a
    /// thread per line cost a server answering 10,000 requests a second more than a tenth of the
    /// CPU its log took (the wake-up, and the switch to the woken thread); a line reaching the log
    /// 2 ms later costs nobody.
    public static let gathering = Duration.milliseconds(2)
    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)
    private let progress = NSCondition()

    public init(descriptor: Int32 = STDERR_FILENO, capacity: Int = 10_000) {
        self.descriptor = descriptor
        self.capacity = max(1, capacity)
        let thread = Thread { [self] in
            _ = scanpick_name_this_thread("log-writer")  // for top -H and perf
            writeForever()
        }
        thread.name = "log-writer"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Queues `line` (without its newline); never blocks. Wakes the writing thread only when it
    /// waits: lines logged while it writes go in its next batch, at no cost of a wake-up each.
    public func write(_ line: String) {
        let wakes = state.withLock { state in
            guard state.lines.count < capacity else {
                state.dropped += 1
                return false
            }
            state.lines.append(line)
            state.queued += 1
            defer { state.writerWaits = false }
            return state.writerWaits
        }
        if wakes { ready.signal() }
    }

    /// How many writes the lines took so far.
    var batchesWritten: Int { state.withLock { $0.batches } }

    /// Waits until every line queued before this call has been written.
    public func flush() {
        let target = state.withLock { $0.queued }
        progress.lock()
        while state.withLock({ $0.written }) < target { progress.wait() }
        progress.unlock()
    }

    private func writeForever() {
        while true {
            let idle = state.withLock { state in
                state.writerWaits = state.lines.isEmpty && state.dropped == 0  // it waits next
                return state.writerWaits
            }
            if idle { ready.wait() }
            Thread.sleep(forTimeInterval: Self.gatheringSeconds)
            let (lines, dropped) = state.withLock { state in
                defer {
                    state.lines.removeAll(keepingCapacity: true)
                    state.dropped = 0
                }
                return (state.lines, state.dropped)
            }
            var text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
            if dropped > 0 {
                text += JournalPriority.tagged(#"{"event":"log_lines_dropped","count":\#(dropped)}"#) + "\n"
            }
            Self.writeAll(Array(text.utf8), to: descriptor)
            progress.lock()
            state.withLock { state in
                state.written += lines.count
                state.batches += 1
            }
            progress.broadcast()
            progress.unlock()
        }
    }

    private static let gatheringSeconds =
        Double(gathering.components.seconds) + Double(gathering.components.attoseconds) / 1e18

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
