import Foundation

/// A loopback TCP port held by a bound socket that does not listen, so that while a test's server is
/// stopped no other process of the parallel suite is given the port (by binding port 0) and answers
/// in its place: a client connecting gets "connection refused", as from a server that is away.
///
///     let held = PortReservation(port: 18080)   // server stopped
///     held?.release()                            // just before it starts again on 18080
final class PortReservation: Sendable {
    private let socket: Int32

    /// Binds 127.0.0.1:`port`, or nil when the port cannot be held (the caller goes on without).
    init?(port: UInt16) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        // SO_REUSEADDR lets the bind succeed over the stopped server's TIME_WAIT connections; the
        // kernel still never hands out a port held this way to a bind to port 0.
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(socket)
            return nil
        }
        self.socket = socket
    }

    /// Frees the port for the server that starts on it next.
    func release() { close(socket) }
}
