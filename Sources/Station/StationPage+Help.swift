import Foundation
import HTTPServing
import Wire

/// The page's "Call lead": the picker calls the shift lead, who sees "Needs help" on the fleet page
/// (the call goes with the station's heartbeats, ``HelpCall``), and the picker can cancel it.
extension StationPage {
    /// `GET /api/help`, `POST /api/help` (call) and `POST /api/help/cancel`: each answers
    /// `{"help": {"since","by"} | null}`, the call in force. The call names the picker signed in,
    /// else the worker the station's actions name.
    func help(_ route: Route) throws -> String {
        switch route {
        case .callHelp:
            station.help.call(by: try callerName())
        case .cancelHelp:
            station.help.cancel()
        default:
            break
        }
        struct Answer: Encodable {
            var help: StationHeartbeat.Help?
            enum CodingKeys: String, CodingKey { case help }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(help, forKey: .help)  // null, not left out, when there is none
            }
        }
        return try Self.encode(Answer(help: station.help.current))
    }

    /// The picker's name as the sign-in or the config's `workers` has it, else their worker id, else
    /// the station's name (someone is at it).
    private func callerName() throws -> String {
        let configuration = station.configuration
        if let worker = try station.workers.current() {
            return worker.name ?? station.workers.name(of: worker.id) ?? worker.id
        }
        if configuration.requireSignIn { return configuration.station }
        return station.workers.name(of: configuration.worker) ?? configuration.worker
    }
}
