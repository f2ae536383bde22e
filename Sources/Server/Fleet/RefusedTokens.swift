import Foundation
import Synchronization

/// The stations whose requests this server refused for their token, and when (in memory, at most
/// ``limit`` names, the oldest forgotten first). A station whose token is refused cannot say so in
/// a heartbeat (that is refused too), so the fleet view learns it here: a request naming a station
/// (`X-ScanPick-Station`) with a wrong token. Anyone may send such a request, so the view shows it
/// only for a station that has also gone silent since (see ``FleetStatus``), and a heartbeat that is
/// recorded forgets it.
///
///     refused.note("dock-7", at: Date())
///     let when = refused.lastRefusal(of: "dock-7")
final class RefusedTokens: Sendable {
    private let refusals = Mutex<[String: Date]>([:])

    /// Station names remembered at most (a flood of invented names costs this much, no more).
    static let limit = 1000

    func note(_ station: String, at time: Date) {
        refusals.withLock { refusals in
            if refusals[station] == nil, refusals.count >= Self.limit,
                let oldest = refusals.min(by: { $0.value < $1.value })?.key
            {
                refusals[oldest] = nil
            }
            refusals[station] = time
        }
    }

    func lastRefusal(of station: String) -> Date? { refusals.withLock { $0[station] } }

    func forget(_ station: String) { refusals.withLock { $0[station] = nil } }
}
