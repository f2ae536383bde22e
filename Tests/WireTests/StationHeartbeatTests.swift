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
            "lastSyncAt", "camera", "scanners", "batchId", "workerId", "attention", "workerName", "lastActionAt",
            "batchProgress", "help",
        ]
        let fleet = FleetStation(
            heartbeat: heartbeat, lastSeenAt: "2026-12-01T08:01:00.000Z", clockOffsetSeconds: nil, status: "ok",
            problems: [])
        for data in [try JSONEncoder().encode(heartbeat), try JSONEncoder().encode(fleet)] {
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(Set(keys).isSubset(of: object.keys), "\(object.keys.sorted())")
            for key in [
                "oldestPendingAt", "lastSyncAt", "batchId", "workerId", "workerName", "lastActionAt", "batchProgress",
                "help",
            ] { #expect(object[key] is NSNull, "\(key)") }
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

    /// The lead's fields (the picker's name, the last action, the batch's progress, a call for help)
    /// are new: a heartbeat of an older station, without them, reads as before, and the answer an
    /// older station reads has no new key unless the lead cleared a call.
    @Test func theLeadsFieldsAreOptionalBothWays() throws {
        let old = """
            {"station":"dock-7","heartbeatSeconds":30,"version":"0.1.0","online":true,"pending":0,"inFlight":0,
             "dead":0,"oldestPendingAt":null,"lastSyncAt":null,"camera":"off","scanners":0,"batchId":null,
             "workerId":"w-3","attention":[]}
            """
        let decoded = try JSONDecoder().decode(StationHeartbeat.self, from: Data(old.utf8))
        #expect(decoded.help == nil && decoded.workerName == nil && decoded.batchProgress == nil)
        #expect(decoded.lastActionAt == nil)
        try decoded.validate()

        var calling = Self.heartbeat()
        calling.workerName = "Ana Lima"
        calling.lastActionAt = "2026-12-01T08:00:05.000Z"
        calling.batchProgress = StationHeartbeat.Progress(done: 4, total: 14)
        calling.help = StationHeartbeat.Help(since: "2026-12-01T08:01:00.000Z", by: "Ana Lima")
        try calling.validate()
        let data = try JSONEncoder().encode(calling)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["help"] as? [String: String] == ["since": "2026-12-01T08:01:00.000Z", "by": "Ana Lima"])
        #expect(object["batchProgress"] as? [String: Int] == ["done": 4, "total": 14])
        #expect(try JSONDecoder().decode(StationHeartbeat.self, from: data) == calling)

        for broken in [
            StationHeartbeat.Progress(done: 15, total: 14), StationHeartbeat.Progress(done: -1, total: 14),
            StationHeartbeat.Progress(done: 0, total: 100_001),
        ] {
            calling.batchProgress = broken
            #expect(throws: FieldError.self) { try calling.validate() }
        }
        calling.batchProgress = nil
        for name in ["", String(repeating: "a", count: 65), "tab\there"] {
            calling.help = StationHeartbeat.Help(since: "2026-12-01T08:01:00.000Z", by: name)
            #expect(throws: FieldError.self) { try calling.validate() }
        }

        let plain = try JSONSerialization.jsonObject(with: JSONEncoder().encode(HeartbeatAnswer(receivedAt: "t")))
        #expect((plain as? [String: Any])?.keys.sorted() == ["receivedAt"])
        let told = HeartbeatAnswer(receivedAt: "t", helpCleared: "2026-12-01T08:01:00.000Z")
        #expect(try JSONDecoder().decode(HeartbeatAnswer.self, from: JSONEncoder().encode(told)) == told)
    }

    /// A heartbeat with every field at its bound, in characters of four bytes where text allows them,
    /// still fits the body the server reads: a station never loses its heartbeat to its own size.
    @Test func aHeartbeatAtEveryBoundFitsTheBodyLimit() throws {
        func text(_ count: Int) -> String { String(repeating: "😀", count: count) }
        // Times are RFC 3339: the longest one read (40 bytes, a long fraction and an offset).
        let time = "2026-12-01T08:01:00." + String(repeating: "1", count: 14) + "+01:00"
        #expect(time.utf8.count == 40)
        let item = StationHeartbeat.Item(
            code: text(StationHeartbeat.maxCodeLength), message: text(StationHeartbeat.maxMessageLength))
        let heartbeat = StationHeartbeat(
            station: String(repeating: "s", count: 64), heartbeatSeconds: 3600,
            version: text(StationHeartbeat.maxVersionLength), online: true, pending: 1_000_000_000,
            inFlight: 1_000_000_000, dead: 1_000_000_000, oldestPendingAt: time, lastSyncAt: time,
            camera: "missing", scanners: 64, batchId: text(200), workerId: text(200),
            workerName: text(StationHeartbeat.maxNameLength), lastActionAt: time,
            batchProgress: StationHeartbeat.Progress(done: 100_000, total: 100_000),
            help: StationHeartbeat.Help(since: time, by: text(StationHeartbeat.maxNameLength)),
            attention: Array(repeating: item, count: StationHeartbeat.maxAttentionItems))
        try heartbeat.validate()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let size = try encoder.encode(heartbeat).count
        #expect(size <= StationHeartbeat.maxBodyBytes, "\(size) bytes")
    }
}
