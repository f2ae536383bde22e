internal import CMicroHTTPD
internal import CThreadName
import Dispatch
import Foundation
import Synchronization

/// Connections that libmicrohttpd closes with the client still sending, kept open a little longer
/// and read to their end. A refusal sent from a request's head (401, 413) comes before the body is
/// read, and libmicrohttpd then closes the connection; a socket closed with bytes unread, or that
/// bytes still reach, answers with a TCP reset, which can destroy the refusal in the client's
/// buffers before it is read: the client reports "broken pipe" or "connection reset" instead of the
/// server's reason (what web servers call a lingering close). A socket lingers until the client
/// closes its side, for at most ``seconds`` and ``maxBytes``; at most ``capacity`` linger at once,
/// and ``perAddress`` from one client address, so one client cannot take every place (past that
/// a socket closes at once, as it would without this).
///
///     let lingering = LingeringCloses(limits: limits)
///     lingering.adopt(socket)  // before libmicrohttpd closes its own descriptor
final class LingeringCloses: Sendable {
    /// Sockets lingering at most at once (each is an open file).
    static let capacity = 64
    /// Sockets lingering at most at once from one client address.
    static let perAddress = 8
    /// How long one socket lingers at most: a client that sends its body, 5 seconds or the time a
    /// body may take, whichever is shorter.
    let seconds: Int
    /// How many bytes of one socket are read at most: four times the largest body accepted (enough
    /// for a body refused as too large to arrive and be dropped whole), and never over 16 MiB.
    let maxBytes: Int

    private struct Lingering {
        let socket: Int32
        /// The client's address (its IP's bytes).
        let peer: [UInt8]
        let deadline: UInt64
        var read = 0
    }
    private struct State {
        var sockets: [Lingering] = []
        var stopped = false
    }
    private let state = Mutex(State())
    /// Polled beside the sockets (an eventfd): an adoption or a stop writes to it, so the thread
    /// sees either at once, however long its poll would otherwise wait.
    private let wakeUp: Int32
    private let threadEnded = DispatchSemaphore(value: 0)

    init(limits: HTTPServerLimits) {
        seconds = min(5, limits.bodyTimeoutSeconds)
        maxBytes = min(4 * limits.maxBodyBytes, 16 << 20)
        // Without one (no descriptor left), the thread looks every 100 ms instead.
        wakeUp = scanpick_wake_up_descriptor()
        let thread = Thread { [self] in
            _ = scanpick_name_this_thread("http-linger")  // for top -H and perf
            lingerUntilStopped()
            threadEnded.signal()
        }
        thread.name = "http-linger"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// How many sockets linger now.
    var count: Int { state.withLock { $0.sockets.count } }

    /// Keeps a copy of `socket` open (libmicrohttpd closes its own descriptor) and reads it to its
    /// end; closes the copy at once when the server is stopping, ``capacity`` sockets linger, or
    /// ``perAddress`` from the same client.
    func adopt(_ socket: Int32) {
        let copy = fcntl(socket, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return }
        // The client must still see our end of the stream now: libmicrohttpd shuts a plain socket's
        // sending side itself, but only ends TLS, leaving the TCP end to its close, which the copy
        // would hold back for as long as it lingers.
        shutdown(copy, Int32(SHUT_WR))
        let deadline = Self.now() + UInt64(seconds) * 1_000_000_000
        let peer = Self.peer(of: copy)
        let kept = state.withLock { state -> Bool in
            guard !state.stopped, state.sockets.count < Self.capacity,
                state.sockets.count(where: { $0.peer == peer }) < Self.perAddress
            else { return false }
            state.sockets.append(Lingering(socket: copy, peer: peer, deadline: deadline))
            return true
        }
        if kept { wake() } else { close(copy) }
    }

    /// Closes every lingering socket and ends the thread. Call once; later adoptions close at once.
    func stop() {
        state.withLock { $0.stopped = true }
        wake()
        threadEnded.wait()
        let left = state.withLock { state in
            defer { state.sockets = [] }
            return state.sockets
        }
        for lingering in left { close(lingering.socket) }
    }

    // Closed only here: an adoption racing a stop may still write to it (a number closed in `stop`
    // could by then name another thread's file).
    deinit { if wakeUp >= 0 { close(wakeUp) } }

    /// Ends the thread's poll at once (a socket to watch, or a stop).
    private func wake() {
        guard wakeUp >= 0 else { return }
        var one: UInt64 = 1
        _ = write(wakeUp, &one, 8)  // a full counter (EAGAIN) already holds a wake-up
    }

    private func lingerUntilStopped() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (sockets, stopped) = state.withLock { ($0.sockets, $0.stopped) }
            if stopped { return }
            // The wake-up first, then one entry a socket; with nothing lingering, only the wake-up
            // ends the wait.
            var polled = [pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0)]
            polled += sockets.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
            let before = Self.now()
            var timeout: Int32 = sockets.isEmpty ? -1 : 0
            if let soonest = sockets.map(\.deadline).min(), soonest > before {
                timeout = Int32(clamping: (soonest - before) / 1_000_000 + 1)
            }
            if wakeUp < 0 { timeout = timeout < 0 ? 100 : min(timeout, 100) }
            _ = poll(&polled, nfds_t(polled.count), timeout)
            if polled[0].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeUp, &count, 8)  // resets the counter
            }
            let now = Self.now()
            var ended: [Int32] = []
            var progress: [Int32: Int] = [:]
            for (entry, polled) in zip(sockets, polled.dropFirst()) {
                var read = entry.read
                var done = entry.deadline <= now
                if !done, polled.revents != 0 {
                    done = Self.drain(entry.socket, into: &buffer, read: &read, atMost: maxBytes)
                }
                if done { ended.append(entry.socket) } else { progress[entry.socket] = read }
            }
            state.withLock { state in
                state.sockets.removeAll { ended.contains($0.socket) }
                for index in state.sockets.indices {
                    if let read = progress[state.sockets[index].socket] { state.sockets[index].read = read }
                }
            }
            for socket in ended { close(socket) }
        }
    }

    /// Reads and drops what `socket` has now; true once it is done with: the client closed its side,
    /// the connection failed, or more than `limit` bytes came.
    private static func drain(_ socket: Int32, into buffer: inout [UInt8], read: inout Int, atMost limit: Int) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                read += count
                if read > limit { return true }
                continue
            }
            if count < 0, errno == EINTR { continue }
            return !(count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        }
    }

    /// The IP address at the other end of `socket`, as bytes (empty if it cannot be read).
    static func peer(of socket: Int32) -> [UInt8] {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let read = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
        }
        guard read == 0 else { return [] }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &address) { raw in
                var v4 = raw.load(as: sockaddr_in.self).sin_addr
                return withUnsafeBytes(of: &v4) { Array($0) }
            }
        case AF_INET6:
            return withUnsafeBytes(of: &address) { raw in
                var v6 = raw.load(as: sockaddr_in6.self).sin6_addr
                return withUnsafeBytes(of: &v6) { Array($0) }
            }
        default:
            return []
        }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
