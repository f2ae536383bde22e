/// What one probe of the server found: whether it answers at all, and whether its database does
/// (nil when the server did not say, e.g. one without `GET /health/ready`).
public struct ServerProbe: Sendable, Equatable {
    public var reachable: Bool
    public var databaseReady: Bool?
    /// Set when the server said it cannot store anything now (`storage_full`, `storage_failed`).
    public var storageProblem: Attention?

    public init(reachable: Bool, databaseReady: Bool?, storageProblem: Attention? = nil) {
        self.reachable = reachable
        self.databaseReady = databaseReady
        self.storageProblem = storageProblem
    }
}
