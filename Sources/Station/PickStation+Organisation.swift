import Queue

extension PickStation {
    /// The organisation a command acts for when the person did not name one: the open batch's
    /// (when `preferOpenBatch`: a tap or a scan is for the batch in hand), else the only configured
    /// one; when neither settles it, an error listing the configured ones.
    ///
    ///     let org = try station.organisation(requested: arguments[\.org], preferOpenBatch: true)
    public func organisation(requested: String?, preferOpenBatch: Bool) throws -> String {
        if let requested { return requested }
        if preferOpenBatch, let open = try cache.openBatch() { return open.org }
        let configured = configuration.organisations.keys.sorted()
        if configured.count == 1, let only = configured.first { return only }
        throw OrganisationError(configured: configured, openBatchConsidered: preferOpenBatch)
    }
}

/// No organisation was named and none follows from the station's state. The description says
/// which are configured; how to name one is the caller's to add (a command's `--org`, a page's choice).
public struct OrganisationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var configured: [String]
    public var openBatchConsidered: Bool

    public var description: String {
        (openBatchConsidered ? "no batch is open and " : "")
            + "this station has \(configured.count) organisations (\(configured.joined(separator: ", ")))"
    }
}
