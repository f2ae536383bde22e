import Foundation

extension ListenAddress {
    /// Why a server could not listen here now, in an operator's words with what to do (and whether
    /// it is only that something listens there already), or nil when it could: the address is bound for a moment (and let go) as the server would bind it. Port 0
    /// (any free port) always can. For `config check`, which must fail where start-up would.
    ///
    ///     if let problem = address.bindProblem(key: "listen") { … }
    public func bindProblem(key: String) -> (message: String, inUse: Bool)? {
        guard port != 0, let address = socketAddress() else { return nil }
        let family = host.contains(":") ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }  // no socket to try with: start-up will say why
        defer { close(descriptor) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withUnsafeBytes { bytes in
            bind(
                descriptor, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }
        guard bound != 0 else { return nil }
        switch errno {
        case EADDRINUSE:
            return (
                "\(key) \(self) is in use by another program (ss -ltnp 'sport = :\(port)' names it): stop it or choose another port",
                true
            )
        case EADDRNOTAVAIL:
            return ("\(key) \(self): \(host) is not an address of this machine (ip -brief address lists them)", false)
        case EACCES:
            return (
                "\(key) \(self): port \(port) is below 1024, which only root may listen on and the service does not run as root: use a port from 1024 up (e.g. 8080)",
                false
            )
        default:
            return ("\(key) \(self) cannot be listened on: \(String(cString: strerror(errno)))", false)
        }
    }
}
