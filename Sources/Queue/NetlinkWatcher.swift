internal import CNetlink
import Foundation

/// Hears Linux rtnetlink notifications (links up or down, addresses and routes added or removed)
/// and calls `onChange` for each burst, so the network monitor can probe the server at once instead
/// of waiting for its next timer. ``watchUntilStopped()`` blocks its thread (the monitor runs it on
/// one of its own, and waits for it after ``stop()``).
///
///     let watcher = NetlinkWatcher { monitor.probeNow() }
///     await BlockingExecutor.runOnOwnThread(named: "netlink") { watcher?.watchUntilStopped() }
///     watcher.stop()  // from elsewhere: the loop ends within half a second
public final class NetlinkWatcher: @unchecked Sendable {
    // `descriptor` and `onChange` are set once in init; `stopped` is guarded by `lock`.
    private let descriptor: Int32
    private let onChange: @Sendable () -> Void
    private let lock = NSLock()
    private var stopped = false
    private var closed = false

    /// Opens the netlink socket (changes are kept from now on); nil if it cannot be opened (then
    /// only the timer probes).
    public init?(onChange: @escaping @Sendable () -> Void) {
        let descriptor = scanpick_netlink_open_route_monitor()
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.onChange = onChange
    }

    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    deinit {
        stop()
        lock.withLock {
            if !closed { close(descriptor) }  // never watched: the loop did not close it
        }
    }

    /// Reads the notifications until ``stop()`` (or a read error), then closes the socket.
    public func watchUntilStopped() {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 500)
            if lock.withLock({ stopped }) { break }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count <= 0 {
                if errno == EAGAIN || errno == EINTR || errno == ENOBUFS { continue }
                break
            }
            // Drain the rest of a burst (one change often sends several messages), then report once.
            while buffer.withUnsafeMutableBytes({ recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0
            {}
            onChange()
        }
        // Closed under the lock and marked stopped, so a later stop() never shuts down the number
        // once another descriptor has been given it (the loop also ends on a read error).
        lock.withLock {
            stopped = true
            closed = true
            close(descriptor)
        }
    }
}
