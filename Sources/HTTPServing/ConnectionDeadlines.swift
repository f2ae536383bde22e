internal import CThreadName
import Dispatch
import Foundation
import Synchronization

/// Closes connections that send their request too slowly, which libmicrohttpd's inactivity timeout
/// cannot catch (every trickled byte resets it). A connection has until its deadline to send a
/// request head (from when it opened or got its previous answer), then until a second one for the
/// body; while a handler works on its request it has none. A sweep a few times a second shuts the
/// socket of each connection past its deadline, which libmicrohttpd then sees closed and frees.
///
/// It also bounds idle connections (those still to send a request head, new or kept alive), from
/// one address and over all: a connection past ``HTTPServerLimits/perAddressConnectionLimit`` or
/// ``HTTPServerLimits/connectionLimit`` makes room by closing the oldest idle one, never one whose
/// request is under way. Every program on the server's own host shares one address (127.0.0.1),
/// so refusing the newest connection instead would let 64 idle sockets lock out the picker's page
/// (or a server's local clients); a client that sends its request at once is never shut out.
final class ConnectionDeadlines: Sendable {
    /// One open connection: its socket and its deadline (monotonic nanoseconds; 0 for none).
    final class Entry: Sendable {
        let socket: Int32
        let deadline: Atomic<UInt64>
        /// The client's IP address, as bytes.
        let peer: [UInt8]
        /// Since when the connection waits for a request head (monotonic nanoseconds); 0 while a
        /// request is under way, or once it was closed to make room.
        let idleSince: Atomic<UInt64>
        /// A request was refused before its body was read: when the connection closes, its socket
        /// lingers to read that body (``LingeringCloses``).
        let lingers = Atomic(false)

        init(socket: Int32, deadline: UInt64, peer: [UInt8], idleSince: UInt64) {
            self.socket = socket
            self.deadline = Atomic(deadline)
            self.peer = peer
            self.idleSince = Atomic(idleSince)
        }
    }

    /// The open connections, and how many of them (not yet closed to make room) each address holds.
    private struct Open {
        var entries: [UInt: Entry] = [:]
        var byPeer: [[UInt8]: Int] = [:]
        /// Entries closed to make room, which libmicrohttpd has not yet reported closed.
        var evicted: Set<UInt> = []
        var live: Int { entries.count - evicted.count }
    }

    private let headerNanoseconds: UInt64
    private let bodyNanoseconds: UInt64
    /// Open connections by their libmicrohttpd address. Removing one (when libmicrohttpd reports it
    /// closed, before it closes the socket) and shutting one down both hold this lock, so a sweep
    /// never touches a socket number that has been closed and reused.
    private let open = Mutex(Open())
    private let closedForSlowness = Atomic<Int>(0)
    private let closedForRoom = Atomic<Int>(0)
    private let perAddressLimit: Int
    private let totalLimit: Int
    /// Signalled to end the sweep; the sweeping thread signals `swept` when it has ended.
    private let stopSweeping = DispatchSemaphore(value: 0)
    private let sweepEnded = DispatchSemaphore(value: 0)

    init(limits: HTTPServerLimits) {
        headerNanoseconds = UInt64(limits.headerTimeoutSeconds) * 1_000_000_000
        bodyNanoseconds = UInt64(limits.bodyTimeoutSeconds) * 1_000_000_000
        perAddressLimit = limits.perAddressConnectionLimit
        totalLimit = limits.connectionLimit
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

    /// How many idle connections were closed to make room for newer ones since the server started.
    var closedForRoomCount: Int { closedForRoom.load(ordering: .relaxed) }

    /// A new connection: it must send a request head in time. Past the limits, the oldest idle
    /// connection of its address (or of all) is closed to make room: this one, only when every
    /// other is at work. Returns its entry (kept by the caller as libmicrohttpd's socket context).
    func opened(_ connection: UInt, socket: Int32) -> Entry {
        let now = Self.now()
        let entry = Entry(
            socket: socket, deadline: now + headerNanoseconds, peer: LingeringCloses.peer(of: socket), idleSince: now)
        let made = open.withLock { open -> Int in
            open.entries[connection] = entry
            open.byPeer[entry.peer, default: 0] += 1
            var made = 0
            if open.byPeer[entry.peer, default: 0] > perAddressLimit, Self.evictOldestIdle(&open, from: entry.peer) {
                made += 1
            }
            if open.live > totalLimit, Self.evictOldestIdle(&open, from: nil) { made += 1 }
            return made
        }
        if made > 0 { closedForRoom.add(made, ordering: .relaxed) }
        return entry
    }

    /// Shuts the socket of the connection idle the longest (of `peer`, or of any address when nil);
    /// false when none is idle.
    private static func evictOldestIdle(_ open: inout Open, from peer: [UInt8]?) -> Bool {
        var oldest: (key: UInt, entry: Entry, since: UInt64)?
        for (key, entry) in open.entries where peer.map({ entry.peer == $0 }) ?? true {
            guard !open.evicted.contains(key) else { continue }
            let since = entry.idleSince.load(ordering: .relaxed)
            guard since != 0, since < oldest?.since ?? .max else { continue }
            oldest = (key, entry, since)
        }
        guard let oldest else { return false }
        oldest.entry.idleSince.store(0, ordering: .relaxed)
        oldest.entry.deadline.store(0, ordering: .relaxed)
        open.evicted.insert(oldest.key)
        open.byPeer[oldest.entry.peer, default: 1] -= 1
        shutdown(oldest.entry.socket, Int32(SHUT_RDWR))
        return true
    }

    /// The connection is closing: forget it before its socket is closed.
    func closed(_ connection: UInt) {
        open.withLock { open in
            guard let entry = open.entries.removeValue(forKey: connection) else { return }
            guard open.evicted.remove(connection) == nil else { return }  // uncounted when evicted
            let left = open.byPeer[entry.peer, default: 1] - 1
            open.byPeer[entry.peer] = left > 0 ? left : nil
        }
    }

    /// A request head has arrived: the body must follow in time.
    func headReceived(_ entry: Entry) {
        entry.idleSince.store(0, ordering: .relaxed)
        entry.deadline.store(Self.now() + bodyNanoseconds, ordering: .relaxed)
    }

    /// The whole request has arrived: no deadline while it is answered.
    func requestReceived(_ entry: Entry) { entry.deadline.store(0, ordering: .relaxed) }

    /// The answer is sent: the next request head must come in time.
    func answered(_ entry: Entry) {
        let now = Self.now()
        entry.deadline.store(now + headerNanoseconds, ordering: .relaxed)
        entry.idleSince.store(now, ordering: .relaxed)
    }

    /// Stops sweeping and waits for a sweep under way to end. Call once.
    func stop() {
        stopSweeping.signal()
        sweepEnded.wait()
    }

    private func sweep() {
        let now = Self.now()
        var shut = 0
        open.withLock { open in
            for entry in open.entries.values {
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
