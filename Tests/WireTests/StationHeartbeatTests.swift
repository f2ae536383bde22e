import Foundation
import Testing
import Wire

@Suite struct StationHeartbeatTests {
    static func heartbeat(attention: [StationHeartbeat.Item] = []) -> StationHeartbeat {
        StationHeartbeat(
            station: "dock-7", heartbeatSeconds: 30, version: ScanPickVersion.current, online: true, pending: 2,
            inFlight: 1, dead: 0, oldestPendingAt: "2026-12-01T08:00:00.000Z", lastSyncAt: nil, camera: "ok",
            scanners: 1, batchId: "b-1", workerId: "w-3", attention: attention)
    }

    /// A station's own messages (an error text, a path) may be long or hold control characters:
    /// fitted, they always pass the server's rule, so they never cost the station its heartbeat.
    @Test(arguments: [
        "", "plain", "line\nbreak\tand tab", "bidi \u{202E}override", String(repeating: "é", count: 400),
        String(repeating: "👩‍👩‍👧‍👦", count: 350), "nul\u{0}inside",
    ])
    func fittedMessagesAlwaysPassTheRule(message: String) throws {
        let item = StationHeartbeat.Item(
            code: StationHeartbeat.fitted(message, maxLength: StationHeartbeat.maxCodeLength),
            message: StationHeartbeat.fitted(message, maxLength: StationHeartbeat.maxMessageLength))
        try Self.heartbeat(attention: [item]).validate()
        #expect(item.message.count <= StationHeartbeat.maxMessageLength)
        if message.count > StationHeartbeat.maxMessageLength { #expect(item.message.hasSuffix("…")) }
        if message == "plain" { #expect(item.message == "plain") }
    }

    /// Values a station does not have go out as `null`, never as missing keys: every reader sees
    /// the fourteen keys in every heartbeat and in every station `GET /api/stations` lists.
    @Test func everyKeyIsSentEvenWhenItHasNoValue() throws {
        var heartbeat = Self.heartbeat()
        (heartbeat.oldestPendingAt, heartbeat.batchId, heartbeat.workerId) = (nil, nil, nil)
        let keys = [
            "station", "heartbeatSeconds", "version", "online", "pending", "inFlight", "dead", "oldestPendingAt",
            "lastSyncAt", "camera", "scanners", "batchId", "workerId", "attention",
        ]
        let fleet = FleetStation(
            heartbeat: heartbeat, lastSeenAt: "2026-12-01T08:01:00.000Z", clockOffsetSeconds: nil, status: "ok",
            problems: [])
        for data in [try JSONEncoder().encode(heartbeat), try JSONEncoder().encode(fleet)] {
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(Set(keys).isSubset(of: object.keys), "\(object.keys.sorted())")
            for key in ["oldestPendingAt", "lastSyncAt", "batchId", "workerId"] { #expect(object[key] is NSNull) }
        }
        #expect(try JSONDecoder().decode(StationHeartbeat.self, from: JSONEncoder().encode(heartbeat)) == heartbeat)
    }

    /// `GET /api/stations` puts the heartbeat's fields and the server's side by side in one object,
    /// and reads back what it wrote.
    @Test func aFleetStationIsOneFlatObjectThatRoundTrips() throws {
        let station = FleetStation(
            heartbeat: Self.heartbeat(), lastSeenAt: "2026-12-01T08:01:00.000Z", clockOffsetSeconds: -1.5,
            status: "backlog", problems: ["backlog"])
        let data = try JSONEncoder().encode(station)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["station"] as? String == "dock-7")
        #expect(object["status"] as? String == "backlog")
        #expect(object["inFlight"] as? Int == 1)
        #expect(object["heartbeat"] == nil)
        #expect(try JSONDecoder().decode(FleetStation.self, from: data) == station)
    }
}
