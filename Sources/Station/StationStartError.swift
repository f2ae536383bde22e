/// Why the station cannot start.
public enum StationStartError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The page cannot listen where the config says (the address in use, not an address here).
    case pageCannotListen(String)
    /// `/metrics` cannot listen where the config's `metrics.listen` says.
    case metricsCannotListen(String)

    public var description: String {
        switch self {
        case .pageCannotListen(let reason): "\(reason) (the address is the config's \"page.listen\")"
        case .metricsCannotListen(let reason): "\(reason) (the address is the config's \"metrics.listen\")"
        }
    }
}
