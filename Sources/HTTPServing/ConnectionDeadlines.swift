internal import CThreadName
import Dispatch
import Foundation
import Synchronization

/// Closes connections that send their request too slowly, which libmicrohttpd's inactivity timeout
/// cannot catch (every trickled byte resets it). A connection has until its deadline to send a
/// request head (from when it opened or got its previous answer), then until a second one for the
/// body; while a handler works on its request it has none. A sweep a few times a second shuts the
/// socket of each connection past its deadline, which libmicrohttpd then sees closed and frees.
final class ConnectionDeadlines: Sendable {
    /// One open connection: its socket and its deadline (monotonic nanoseconds; 0 for none).
    final class Entry: Sendable {
        let socket: Int32
        let deadline: Atomic<UInt64>
        /// A request was refused before its body was read: when the connection closes, its socket
        /// lingers to read that body (``LingeringCloses``).
        let lingers = Atomic(false)

        init(socket: Int32, deadline: UInt64) {
            self.socket = socket
            self.deadline = Atomic(deadline)
        }
    }

    private let headerNanoseconds: UInt64
    private let bodyNanoseconds: UInt64
    /// Open connections by their libmicrohttpd address. Removing one (when libmicrohttpd reports it
    /// closed, before it closes the socket) and shutting one down both hold this lock, so a sweep
    /// never touches a socket number that has been closed and reused.
    private let open = Mutex<[UInt: Entry]>([:])
    private let closedForSlowness = Atomic<Int>(0)
    /// Signalled to end the sweep; the sweeping thread signals `swept` when it has ended.
    private let stopSweeping = DispatchSemaphore(value: 0)
    private let sweepEnded = DispatchSemaphore(value: 0)

    init(limits: HTTPServerLimits) {
        headerNanoseconds = UInt64(limits.headerTimeoutSeconds) * 1_000_000_000
        bodyNanoseconds = UInt64(limits.bodyTimeoutSeconds) * 1_000_000_000
        let interval = DispatchTimeInterval.milliseconds(
            max(50, min(250, min(limits.headerTimeoutSeconds, limits.bodyTimeoutSeconds) * 1000 / 8)))
        let thread = Thread { [self] in
            _ = scanpick_name_this_thread("http-deadlines")  // for top -H and perf
            while stopSweeping.wait(timeout: .now() + interval) == .timedOut { sweep() }
            sweepEnded.signal()
        }
        thread.name = "http-deadlines"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// How many connections were closed for missing a deadline since the server started.
    var closedCount: Int { closedForSlowness.load(ordering: .relaxed) }

    /// A new connection: it must send a request head in time. Returns its entry (kept by the caller
    /// as libmicrohttpd's socket context).
    func opened(_ connection: UInt, socket: Int32) -> Entry {
        let entry = Entry(socket: socket, deadline: Self.now() + headerNanoseconds)
        open.withLock { $0[connection] = entry }
        return entry
    }

    /// The connection is closing: forget it before its socket is closed.
    func closed(_ connection: UInt) {
        _ = open.withLock { $0.removeValue(forKey: connection) }
    }

    /// A request head has arrived: the body must follow in time.
    func headReceived(_ entry: Entry) { entry.deadline.store(Self.now() + bodyNanoseconds, ordering: .relaxed) }

    /// The whole request has arrived: no deadline while it is answered.
    func requestReceived(_ entry: Entry) { entry.deadline.store(0, ordering: .relaxed) }

    /// The answer is sent: the next request head must come in time.
    func answered(_ entry: Entry) { entry.deadline.store(Self.now() + headerNanoseconds, ordering: .relaxed) }

    /// Stops sweeping and waits for a sweep under way to end. Call once.
    func stop() {
        stopSweeping.signal()
        sweepEnded.wait()
    }

    private func sweep() {
        let now = Self.now()
        var shut = 0
        open.withLock { open in
            for entry in open.values {
                let deadline = entry.deadline.load(ordering: .relaxed)
                guard deadline != 0, deadline < now else { continue }
                entry.deadline.store(0, ordering: .relaxed)
                shutdown(entry.socket, Int32(SHUT_RDWR))
                shut += 1
            }
        }
        if shut > 0 { closedForSlowness.add(shut, ordering: .relaxed) }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
