/// Delivers one queued action to the ScanPick API.
public protocol ActionTransport: Sendable {
    func deliver(_ action: QueuedAction) async -> DeliveryOutcome
}
