/// What one probe of the server found: whether it answers at all, and whether its database does
/// (nil when the server did not say, e.g. one without `GET /health/ready`).
public struct ServerProbe: Sendable, Equatable {
    public var reachable: Bool
    public var databaseReady: Bool?

    public init(reachable: Bool, databaseReady: Bool?) {
        self.reachable = reachable
        self.databaseReady = databaseReady
    }
}
