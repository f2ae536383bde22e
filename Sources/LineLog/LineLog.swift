internal import CThreadName
import Foundation
import Synchronization
import Timestamps
import Waking

/// Log lines written to a file descriptor (standard error by default) by a thread of their own, a
/// batch per write: whoever logs — a thread serving HTTP, the thread committing to the database —
/// never waits for a slow reader of the log. Woken by the first line of a batch, the thread lets
/// lines gather for a while (`gathering`, 2 ms by default) before it writes, so under load it wakes
/// and writes a few hundred times a second whatever the rate of lines; it writes at once when half
/// its room is taken or a ``flush(waitingAtMost:)`` waits. At most `capacity` lines wait; past that, lines are dropped and
/// counted, and a `{"time":…,"level":"warning","event":"log_lines_dropped","count":N}` line says so once there is room again.
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
        /// Calls to `flush` waiting now: the writing thread does not let lines gather meanwhile.
        var flushers = 0
    }

    private let descriptor: Int32
    private let capacity: Int
    /// How long the writing thread lets lines gather after the first one of a batch.
    let gathering: Duration
    private let state = Mutex(State())
    /// Rung by the first line of a batch, by the line that takes half the room, and by a flush.
    private let wake = WakeUp()
    private let progress = NSCondition()

    /// `gathering`: waking a thread per line cost a server answering 10,000 requests a second more
    /// than a tenth of the CPU its log took (the wake-up, and the switch to the woken thread); a
    /// line reaching the log 2 ms later costs nobody.
    public init(descriptor: Int32 = STDERR_FILENO, capacity: Int = 10_000, gathering: Duration = .milliseconds(2)) {
        self.descriptor = descriptor
        self.capacity = max(1, capacity)
        self.gathering = max(.zero, gathering)
        let thread = Thread { [self] in
            _ = scanpick_name_this_thread("log-writer")  // for top -H and perf
            writeForever()
        }
        thread.name = "log-writer"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Queues `line` (without its newline); never blocks. Wakes the writing thread only for the
    /// first line of a batch, or to write at once when half its room is taken.
    public func write(_ line: String) {
        let wakes = state.withLock { state in
            guard state.lines.count < capacity else {
                state.dropped += 1
                return false
            }
            state.lines.append(line)
            state.queued += 1
            return state.lines.count == 1 || state.lines.count == (capacity + 1) / 2
        }
        if wakes { wake.ring() }
    }

    /// How many writes the lines took so far.
    var batchesWritten: Int { state.withLock { $0.batches } }

    /// Waits until every line queued before this call has been written, or `limit` has passed (a
    /// reader that never reads must not hold a process's exit for ever); false if it has.
    @discardableResult
    public func flush(waitingAtMost limit: Duration = .seconds(5)) -> Bool {
        let target = state.withLock { state in
            state.flushers += 1
            return state.queued
        }
        wake.ring()  // ends a gathering now, if one goes on
        let deadline = Date() + Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        progress.lock()
        var done = true
        while state.withLock({ $0.written }) < target {
            if !progress.wait(until: deadline) {
                done = state.withLock { $0.written } >= target
                break
            }
        }
        progress.unlock()
        state.withLock { $0.flushers -= 1 }
        return done
    }

    private func writeForever() {
        while true {
            if state.withLock({ $0.lines.isEmpty && $0.dropped == 0 }) {
                wake.wait()  // the first line rings (a ring for lines already written: look again)
                continue
            }
            // The lines waiting now are this batch: a ring for any of them is seen to. From here on
            // a ring (half the room taken, a flush) ends the gathering.
            wake.forgetRing()
            if state.withLock({ $0.flushers == 0 && $0.lines.count < (capacity + 1) / 2 }) {
                wake.wait(timeout: gathering)
            }
            let (lines, dropped) = state.withLock { state in
                defer {
                    state.lines.removeAll(keepingCapacity: true)
                    state.dropped = 0
                }
                return (state.lines, state.dropped)
            }
            guard !lines.isEmpty || dropped > 0 else { continue }
            var text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
            if dropped > 0 {
                text += JournalPriority.tagged(Self.droppedLine(dropped)) + "\n"
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

    /// The line that says `count` lines were dropped, shaped as the Logger's lines are.
    static func droppedLine(_ count: Int, at time: Date = Date()) -> String {
        #"{"time":"\#(Timestamp.iso8601(time))","level":"warning","event":"log_lines_dropped","count":\#(count)}"#
    }

    /// Writes all of `bytes`, waiting while a descriptor that does not block is full; gives up only
    /// when the descriptor is closed or fails (nothing more can be said).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written > 0 {
                offset += written
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                var writable = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&writable, 1, -1)
                continue
            }
            return
        }
    }
}
