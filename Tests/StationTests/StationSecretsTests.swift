import Foundation
import TestSupport
import Testing

/// What the station shows of its secrets: nothing. A password in the `server` URL (basic
/// authentication through a proxy) is redacted wherever the URL is shown.
@Suite struct StationSecretsTests {
    @Test func aPasswordInTheServerURLIsNeverShown() async throws {
        let fixture = try await StationFixture(openBatch: false)
        let password = "s3cret-pass-\(UInt32.random(in: 0...UInt32.max))"
        try fixture.rewriteConfig { $0["server"] = "http://picker:\(password)@127.0.0.1:9/api-prefix" }
        let shown = "http://picker:***@127.0.0.1:9/api-prefix"

        let json = try await fixture.scanpick(["status", "--json"])
        #expect(!json.standardOutput.contains(password) && !json.standardError.contains(password), "\(json)")
        #expect(json.standardOutput.contains(#""server":"\#(shown)""#), "\(json.standardOutput)")
        let text = try await fixture.scanpick(["status"])
        #expect(!text.standardOutput.contains(password) && text.standardOutput.contains("server \(shown)"), "\(text)")
        let checked = try await fixture.scanpick(["config", "check", "--as-user", NamedUser.current])
        #expect(!checked.standardOutput.contains(password) && checked.standardOutput.contains(shown), "\(checked)")

        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let tap = try await page.post("/api/taps", json: ["pickTaskId": "task-x", "kind": "pick", "qty": 1])
        _ = tap  // a tap for a task the cache lacks: refused, but the drain loop runs and fails
        let status = try await page.get("/api/status")
        #expect(!status.text.contains(password), "\(status.text)")
        #expect(status.json["server"] as? String == shown, "\(status.text)")
        #expect(await station.stop() == 0)
        #expect(!station.standardOutput.contains(password))
        #expect(!station.logLines.description.contains(password))
    }
}

/// The user this test process runs as, by name.
enum NamedUser {
    static var current: String { getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root" }
}
