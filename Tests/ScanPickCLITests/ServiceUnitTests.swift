import Foundation
import TestSupport
import Testing

/// The packaged units: `scanpick-serve@.service` (several servers on one machine, for scale-out)
/// is `scanpick-serve.service` with the instance's config, and nothing else, so the hardening and
/// checks of one cannot drift from the other's.
@Suite struct ServiceUnitTests {
    static func unit(_ name: String) throws -> [String] {
        try String(contentsOfFile: Repository.root + "/packaging/systemd/" + name, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func theTemplatedServerUnitIsThePlainOneWithTheInstancesConfig() throws {
        let plain = try Self.unit("scanpick-serve.service").filter { !$0.hasPrefix("# ") }
        let template = try Self.unit("scanpick-serve@.service").filter { !$0.hasPrefix("# ") }
        let derived = plain.map {
            $0.replacingOccurrences(of: "/etc/scanpick/server.json", with: "/etc/scanpick/server-%i.json")
                .replacingOccurrences(of: "Description=ScanPick API server", with: "Description=ScanPick API server %i")
        }
        #expect(template == derived)
        #expect(template.filter { $0.contains("server-%i.json") }.count == 3)  // check, migrate, serve
        // Both run `config check` before anything else.
        for lines in [plain, template] {
            #expect(lines.first { $0.hasPrefix("ExecStart") }?.contains("scanpick config check") == true)
        }
    }
}
