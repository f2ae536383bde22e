import Foundation
import Wire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads an organisation's stations from the ScanPick API (`GET /api/stations` with its token).
///
///     let fleet = try await FleetClient(server: url, token: token).stations()
public struct FleetClient: Sendable {
    public var server: URL
    public var token: String
    public var timeout: TimeInterval

    public init(server: URL, token: String, timeout: TimeInterval = 10) {
        self.server = server
        self.token = token
        self.timeout = timeout
    }

    public func stations() async throws(FleetError) -> FleetStations {
        var request = URLRequest(url: server.appendingPathComponent("/api/stations"))
        request.timeoutInterval = timeout
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let body: Data
        let response: URLResponse
        do {
            (body, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw .unreachable(server, reason: (error as NSError).localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            throw .refused(status: status, reason: (object?["message"] as? String) ?? "not the ScanPick API's answer")
        }
        do {
            return try JSONDecoder().decode(FleetStations.self, from: body)
        } catch {
            throw .refused(status: status, reason: "the answer is not a list of stations (\(error))")
        }
    }
}

/// Why the stations could not be read.
public enum FleetError: Error, Sendable, CustomStringConvertible {
    case unreachable(URL, reason: String)
    case refused(status: Int, reason: String)

    public var description: String {
        switch self {
        case .unreachable(let server, let reason): "cannot reach the server at \(ServerURL.redacted(server)): \(reason)"
        case .refused(let status, let reason): "the server answered \(status): \(reason)"
        }
    }
}
