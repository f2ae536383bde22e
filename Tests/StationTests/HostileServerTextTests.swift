import Foundation
import HTTPServing
import TestSupport
import Testing

/// A rogue (or broken) server's text on the operator's terminal: what `batch open`, `pick-list`
/// and `fleet --json` print of it can neither clear the screen, retitle the window, fake a line of
/// output nor reverse the text around it (a batch holding such text is refused outright).
@Suite struct HostileServerTextTests {
    /// Control sequences a terminal acts on: clear screen, an OSC title, CR/LF, a C1 CSI, a
    /// right-to-left override.
    static let clear = "\u{1B}[2J"
    static let title = "\u{1B}]0;pwned\u{07}"
    static let csi = "\u{9B}2J"
    static let override = "\u{202E}"

    /// Whether `text` holds anything a terminal would act on (a line break only between lines).
    static func actsOnATerminal(_ text: String) -> Bool {
        text.unicodeScalars.contains {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E
        }
    }

    @Test func aServersTextIsPrintedSafely() async throws {
        let batch: [String: Any] = [
            "id": "b-1", "status": "open",
            "tasks": [
                [
                    "id": "t-1", "batchId": "b-1", "orderId": "o-1", "lineId": "1", "sku": Self.title + "COLA",
                    "location": "A1\r\nopened batch b-2 (acme): 0 tasks" + Self.clear, "barcode": "036000291452",
                    "qtyRequired": 2, "qtyPicked": 0, "qtyLocked": 0,
                ]
            ],
        ]
        let stations: [String: Any] = [
            "org": "acme", "serverTime": "2026-12-01T10:00:00.000Z",
            "stations": [
                [
                    "station": "st" + Self.csi, "heartbeatSeconds": 30, "version": "0.1" + Self.override,
                    "online": true, "pending": 0, "inFlight": 0, "dead": 0, "camera": "ok", "scanners": 0,
                    "attention": [["code": "x", "message": "evil" + Self.override + "txt"]],
                    "lastSeenAt": "2026-12-01T10:00:00.000Z", "status": "ok", "problems": [String](),
                ]
            ],
        ]
        let answers: [String: [UInt8]] = [
            "/api/batches/b-1": Array(try JSONSerialization.data(withJSONObject: batch)),
            "/api/stations": Array(try JSONSerialization.data(withJSONObject: stations)),
            "/health": Array(#"{"status":"ok"}"#.utf8), "/health/ready": Array(#"{"status":"ready"}"#.utf8),
        ]
        let rogue = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            guard let body = answers[request.path] else { return HTTPResponse(status: 404) }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        }
        defer { rogue.stop() }
        let server = "http://127.0.0.1:\(rogue.address.port)"
        let folder = try TemporaryDirectory()
        let token = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let config = try folder.writePrivate(
            "station.json",
            bytes: Array(
                #"{"station": "s1", "worker": "w1", "server": "\#(server)", "database": "station.sqlite", "organisations": {"acme": {"tokenFile": "acme.token"}}}"#
                    .utf8))

        // A batch whose fields break the API's rules (control characters) is refused with the reason,
        // which names the field, not its text; nothing of it is cached, or printed by `pick-list`.
        let opened = try await ProcessRunner.scanpick(["batch", "open", "b-1", "--org", "acme", "--config", config])
        #expect(opened.status != 0)
        #expect(
            opened.standardError.contains("tasks[0].sku must not contain control characters"),
            "\(opened.standardError)")
        #expect(!Self.actsOnATerminal(opened.standardError + opened.standardOutput))

        let list = try await ProcessRunner.scanpick(["pick-list", "--config", config])
        #expect(!Self.actsOnATerminal(list.standardOutput), "\(list.standardOutput.debugDescription)")
        #expect(!list.standardOutput.contains("COLA") && !list.standardOutput.contains("opened batch"))

        let listJSON = try await ProcessRunner.scanpick(["pick-list", "--json", "--config", config])
        #expect(!Self.actsOnATerminal(listJSON.standardOutput), "\(listJSON.standardOutput.debugDescription)")

        let fleet = try await ProcessRunner.scanpick([
            "fleet", "--json", "--org", "acme", "--server", server, "--token-file", token,
        ])
        #expect(fleet.status == 0, "\(fleet.standardError)")
        #expect(!Self.actsOnATerminal(fleet.standardOutput), "\(fleet.standardOutput.debugDescription)")
        // Still the same JSON: the escapes are JSON's own.
        let parsed = try JSONSerialization.jsonObject(with: Data(fleet.standardOutput.utf8)) as? [String: Any]
        let first = (parsed?["stations"] as? [[String: Any]])?.first
        #expect(first?["station"] as? String == "st" + Self.csi)
        #expect(first?["version"] as? String == "0.1" + Self.override)
    }
}
