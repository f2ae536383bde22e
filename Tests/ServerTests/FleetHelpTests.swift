import Foundation
import TestSupport
import Testing
import Timestamps

/// The shift lead's side of a heartbeat: the picker's name, idle time and batch progress it carries,
/// and a call for help (`help`), which the lead clears with `POST /api/stations/{name}/help/clear`
/// and the station learns of from its next heartbeat's answer, on a real `scanpick serve`.
@Suite struct FleetHelpTests {
    static func clear(_ client: APIClient, _ station: String, since: String) async throws -> APIClient.Reply {
        try await client.post("/api/stations/\(station)/help/clear", json: ["since": since])
    }

    @Test(arguments: ServerStoreKind.allCases)
    func aCallForHelpShowsUntilTheLeadClearsItAndTheStationIsTold(store: ServerStoreKind) async throws {
        let server = try await ServerProcess(store: store)
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let globex = APIClient(server.baseURL, token: ServerProcess.tokens["globex"])
        let since = Timestamp.iso8601(Date().addingTimeInterval(-90))
        let help: [String: Any] = ["since": since, "by": "Ana Lima"]
        let fields: [String: Any] = [
            "workerId": "w-0042", "workerName": "Ana Lima", "lastActionAt": Timestamp.iso8601(),
            "batchProgress": ["done": 4, "total": 14], "help": help, "dead": 2,
        ]
        let first = try await FleetTests.send(acme, FleetTests.heartbeat("st-help", fields))
        #expect(first.status == 200, "\(first.text)")
        #expect(first.json["helpCleared"] == nil)
        // An older station's heartbeat, without any of the new keys, is read as before.
        #expect(try await FleetTests.send(acme, FleetTests.heartbeat("st-old")).status == 200)

        var stations = try await FleetTests.stations(acme)
        let shown = try #require(stations["st-help"])
        #expect(shown["status"] as? String == "help")
        #expect(shown["problems"] as? [String] == ["help", "dead_letters"])
        #expect(shown["workerName"] as? String == "Ana Lima")
        #expect((shown["help"] as? [String: Any])?["by"] as? String == "Ana Lima")
        #expect((shown["batchProgress"] as? [String: Any])?["done"] as? Int == 4)
        #expect(shown["lastActionAt"] as? String != nil)
        #expect(stations["st-old"]?["help"] is NSNull)
        #expect(stations["st-old"]?["workerName"] is NSNull)
        #expect(stations["st-old"]?["status"] as? String == "ok")

        // Another organisation cannot see or clear it; an unknown station is 404; a call that is
        // not the station's (an older one) is not cleared, and the station's stays.
        #expect(try await Self.clear(globex, "st-help", since: since).status == 404)
        #expect(try await Self.clear(acme, "st-nowhere", since: since).status == 404)
        let stale = try await Self.clear(acme, "st-help", since: Timestamp.iso8601(Date().addingTimeInterval(-999)))
        #expect(stale.status == 200 && stale.json["cleared"] as? Bool == false, "\(stale.text)")
        #expect(try await FleetTests.stations(acme)["st-help"]?["status"] as? String == "help")
        #expect(try await Self.clear(acme, "st-help", since: "").status == 400)

        // The lead clears it: gone from the view at once, before the station knows.
        let cleared = try await Self.clear(acme, "st-help", since: since)
        #expect(cleared.status == 200 && cleared.json["cleared"] as? Bool == true, "\(cleared.text)")
        stations = try await FleetTests.stations(acme)
        #expect(stations["st-help"]?["status"] as? String == "dead_letters")
        #expect(stations["st-help"]?["help"] is NSNull)
        // Clearing it again is the same answer.
        #expect(try await Self.clear(acme, "st-help", since: since).json["cleared"] as? Bool == true)

        // The station, not yet aware, sends the call again: recorded without it, and told.
        let told = try await FleetTests.send(acme, FleetTests.heartbeat("st-help", fields))
        #expect(told.status == 200)
        #expect(told.json["helpCleared"] as? String == since, "\(told.text)")
        #expect(try await FleetTests.stations(acme)["st-help"]?["status"] as? String == "dead_letters")
        // It ends the call; later the picker calls again: a new call shows, and is not cleared.
        var without = fields
        without["help"] = NSNull()
        let ended = try await FleetTests.send(acme, FleetTests.heartbeat("st-help", without))
        #expect(ended.status == 200 && ended.json["helpCleared"] == nil)
        let again = Timestamp.iso8601()
        var calling = fields
        calling["help"] = ["since": again, "by": "Ana Lima"]
        let newCall = try await FleetTests.send(acme, FleetTests.heartbeat("st-help", calling))
        #expect(newCall.json["helpCleared"] == nil, "\(newCall.text)")
        #expect(try await FleetTests.stations(acme)["st-help"]?["status"] as? String == "help")
        // The old call's clearing does not clear the new one, even sent again.
        #expect(try await Self.clear(acme, "st-help", since: since).json["cleared"] as? Bool == false)
        #expect(try await FleetTests.stations(acme)["st-help"]?["status"] as? String == "help")

        // What is stored: the clearing is kept beside the station only while it matters.
        #expect(try await Self.clear(acme, "st-help", since: again).json["cleared"] as? Bool == true)
        let marker = try server.read { db in
            try db.row("SELECT help_cleared_since FROM station_heartbeats WHERE station = 'st-help'", [])?
                .optionalString("help_cleared_since")
        }
        #expect(marker == again)
        #expect(try await FleetTests.send(acme, FleetTests.heartbeat("st-help", without)).status == 200)
        let forgotten = try server.read { db in
            try db.row("SELECT help_cleared_since FROM station_heartbeats WHERE station = 'st-help'", [])?
                .optionalString("help_cleared_since")
        }
        #expect(forgotten == nil)
        // Without a token or a session, nothing is cleared.
        #expect(try await Self.clear(APIClient(server.baseURL, token: nil), "st-help", since: again).status == 401)
    }

    /// The new fields are bounded like the others: a name too long or with control characters, a
    /// time that is not one, progress past its total.
    @Test func theNewFieldsAreBounded() async throws {
        let server = try await ServerProcess()
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let now = Timestamp.iso8601()
        for change: [String: Any] in [
            ["workerName": String(repeating: "n", count: 65)], ["workerName": ""], ["workerName": "a\u{0}b"],
            ["workerName": "<b>\u{202E}</b>"], ["lastActionAt": "a while ago"],
            ["batchProgress": ["done": 5, "total": 4]], ["batchProgress": ["done": -1, "total": 4]],
            ["batchProgress": ["done": 0, "total": 100_001]], ["batchProgress": ["done": 1]],
            ["help": ["since": "now", "by": "Ana"]], ["help": ["since": now, "by": ""]],
            ["help": ["since": now, "by": String(repeating: "b", count: 65)]], ["help": ["since": now]],
            ["help": "yes"], ["help": ["since": now, "by": "Ana", "by ": "x"], "workerName": ["Ana"]],
        ] {
            let reply = try await FleetTests.send(acme, FleetTests.heartbeat("st-1", change))
            #expect(reply.status == 400 || reply.status == 422, "\(change): \(reply.text)")
        }
        #expect(try await FleetTests.stations(acme).isEmpty)
        // Markup is text to the server: kept as sent (the page shows it as text).
        let markup = "<img src=x onerror=alert(1)>"
        let reply = try await FleetTests.send(
            acme, FleetTests.heartbeat("st-1", ["workerName": markup, "help": ["since": now, "by": markup]]))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try await FleetTests.stations(acme)["st-1"]?["workerName"] as? String == markup)
    }

    /// A station whose token the server refuses cannot report that in a heartbeat (it is refused
    /// too): the server remembers the refusal of a request naming the station, and the fleet view
    /// shows it once the station has missed a heartbeat since its last one, until it reports again.
    @Test func aStationWhoseTokenIsRefusedIsSaidToBeSoOnceItIsSilent() async throws {
        let server = try await ServerProcess()
        let acme = APIClient(server.baseURL, token: ServerProcess.tokens["acme"])
        let wrong = APIClient(server.baseURL, token: "a-token-rotated-away")
        #expect(
            try await FleetTests.send(acme, FleetTests.heartbeat("st-rotated", ["heartbeatSeconds": 1])).status == 200)
        #expect(
            try await FleetTests.send(acme, FleetTests.heartbeat("st-fine", ["heartbeatSeconds": 3600])).status == 200)
        // Requests made up in st-fine's name (it reports hourly and has not missed one): never shown.
        let madeUp = try await FleetTests.send(wrong, FleetTests.heartbeat("st-fine", ["heartbeatSeconds": 3600]))
        #expect(madeUp.status == 401)
        // st-rotated's token is refused, and it stays silent.
        #expect(
            try await FleetTests.send(wrong, FleetTests.heartbeat("st-rotated", ["heartbeatSeconds": 1])).status == 401)
        #expect(
            try await eventually {
                try await FleetTests.stations(acme)["st-rotated"]?["tokenRefusedAt"] as? String != nil
            })
        let stations = try await FleetTests.stations(acme)
        let refusedAt = try #require(Timestamp.date(stations["st-rotated"]?["tokenRefusedAt"] as? String ?? ""))
        #expect(abs(refusedAt.timeIntervalSinceNow) < 60)
        #expect(stations["st-fine"]?["tokenRefusedAt"] is NSNull)
        // A request without a station name, or without any token, is remembered for no station.
        #expect(try await wrong.get("/api/stations").status == 401)
        // Its token fixed, it reports again and the refusal is forgotten.
        #expect(try await FleetTests.send(acme, FleetTests.heartbeat("st-rotated")).status == 200)
        #expect(try await FleetTests.stations(acme)["st-rotated"]?["tokenRefusedAt"] is NSNull)
    }
}
