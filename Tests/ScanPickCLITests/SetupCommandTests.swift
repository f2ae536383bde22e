import Digest
import Foundation
import TestSupport
import Testing

/// `scanpick setup station|server` as an operator runs it on a fresh machine: a config written only
/// once it passes `config check`, mode 0640 (and `root:scanpick` where that group exists), never
/// over an admin's file without `--force`. Starting the unit needs systemd, so `--no-start` here;
/// `scripts/test-service-vm` runs the rest.
@Suite struct SetupCommandTests {
    static let asMe = ["--as-user", getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"]

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    @Test func aStationIsWrittenCheckedAndKeptUnlessForced() async throws {
        let folder = try TemporaryDirectory()
        let etc = folder.file("etc")
        let token = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let arguments = [
            "setup", "station", "--server", "http://127.0.0.1:9", "--org", "acme", "--token-file", token,
            "--database", folder.file("station.sqlite"), "--etc", etc, "--no-start",
        ]
        let made = try await ProcessRunner.scanpick(arguments + ["--name", "dock-3"])
        #expect(made.status == 0, "\(made.standardError)")
        let etcPath = URL(fileURLWithPath: etc).standardizedFileURL.path
        #expect(made.standardOutput.contains("wrote \(etc)/station.json, owned by "), "\(made.standardOutput)")
        #expect(made.standardOutput.contains("station dock-3, worker picker, server http://127.0.0.1:9"))
        #expect(
            made.standardOutput.contains(
                "not started (--no-start); to start it: systemctl enable --now scanpick-station"))
        #expect(Self.mode(etc + "/station.json") == 0o640)
        #expect(Self.mode(etc + "/acme.token") == 0o600)  // the station refuses a token others may read
        #expect(try String(contentsOfFile: etc + "/acme.token", encoding: .utf8) == "a-real-token-0123456789\n")
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: etc + "/station.json")))
                as? [String: Any])
        #expect(written["station"] as? String == "dock-3")
        let acme = (written["organisations"] as? [String: Any])?["acme"] as? [String: Any]
        #expect(acme?["tokenFile"] as? String == etcPath + "/acme.token")
        let checked = try await ProcessRunner.scanpick(["config", "check", "-c", etc + "/station.json"] + Self.asMe)
        #expect(checked.status == 0, "\(checked.standardError)")

        // Run again, it keeps what is there (an admin may have added the scanner) unless forced.
        let again = try await ProcessRunner.scanpick(arguments)
        #expect(again.status == 1)
        #expect(again.standardError.contains("\(etc)/station.json exists already"), "\(again.standardError)")
        #expect(again.standardError.contains("--force"))
        let forced = try await ProcessRunner.scanpick(arguments + ["--force"])
        #expect(forced.status == 0, "\(forced.standardError)")
        let host =
            try String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines
            ).split(separator: ".").first.map(String.init) ?? ""
        #expect(forced.standardOutput.contains("station \(host), worker picker"), "\(forced.standardOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: etc).sorted() == ["acme.token", "station.json"])
    }

    /// What would not start is not written: the check's message, exit 1, and no file left behind.
    @Test func aConfigThatFailsItsCheckIsNotWritten() async throws {
        let folder = try TemporaryDirectory()
        let etc = folder.file("etc")
        let token = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let refused = try await ProcessRunner.scanpick([
            "setup", "station", "--server", "ftp://127.0.0.1:9", "--org", "acme", "--token-file", token, "--name", "s1",
            "--database", folder.file("station.sqlite"), "--etc", etc, "--no-start",
        ])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("server"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: etc + "/station.json"))
        #expect(!FileManager.default.fileExists(atPath: etc + "/.station.json.new"))

        let badOrg = try await ProcessRunner.scanpick([
            "setup", "station", "--server", "http://127.0.0.1:9", "--org", String(repeating: "a", count: 65),
            "--token-file", token,
            "--etc", etc, "--no-start",
        ])
        #expect(badOrg.status == 2)
    }

    @Test func aServerIsWrittenWithItsDatabase() async throws {
        let folder = try TemporaryDirectory()
        let etc = folder.file("etc")
        let made = try await ProcessRunner.scanpick([
            "setup", "server", "--database", folder.file("server.sqlite"), "--etc", etc, "--no-start",
        ])
        #expect(made.status == 0, "\(made.standardError)")
        #expect(made.standardOutput.contains("listens on 127.0.0.1:8080 in plain HTTP"), "\(made.standardOutput)")
        #expect(made.standardOutput.contains("systemctl enable --now scanpick-serve"))
        #expect(Self.mode(etc + "/server.json") == 0o640)
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: etc + "/server.json")))
                as? [String: Any])
        #expect(written["database"] as? String == folder.file("server.sqlite"))
        #expect((written["organisations"] as? [String: Any])?.isEmpty == true)
        #expect(made.standardError.contains("warning: no organisations are configured"), "\(made.standardError)")
        // With an organisation and its token file, the config keeps the token's SHA-256 alone.
        let token = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let withOrg = try await ProcessRunner.scanpick([
            "setup", "server", "--database", folder.file("server.sqlite"), "--etc", etc, "--no-start", "--force",
            "--org", "acme", "--token-file", token,
        ])
        #expect(withOrg.status == 0, "\(withOrg.standardError)")
        let text = try String(contentsOfFile: etc + "/server.json", encoding: .utf8)
        #expect(text.contains(SHA256.hex(of: "a-real-token-0123456789")) && !text.contains("a-real-token"))
        let alone = try await ProcessRunner.scanpick([
            "setup", "server", "--database", folder.file("server.sqlite"), "--etc", etc, "--no-start", "--org", "acme",
        ])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("--org and --token-file go together"))
        // Plain HTTP beyond this machine is refused as serve refuses it, and nothing is written.
        let open = try await ProcessRunner.scanpick([
            "setup", "server", "--database", folder.file("server.sqlite"), "--listen", "0.0.0.0:8081", "--etc",
            folder.file("etc2"), "--no-start",
        ])
        #expect(open.status == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.file("etc2/server.json")))
    }

    /// A central server reached from other machines: over HTTPS with the certificate and key given,
    /// or in plain HTTP behind a load balancer that terminates TLS, each said so and checked.
    @Test func aServerBeyondThisMachineGetsTLSOrAProxy() async throws {
        let folder = try TemporaryDirectory()
        let certificates = try await TestCertificates()
        let setup = ["setup", "server", "--database", folder.file("server.sqlite"), "--listen", "0.0.0.0:8443"]
        let https = try await ProcessRunner.scanpick(
            setup + [
                "--tls-certificate", certificates.serverCertificate, "--tls-key", certificates.serverKey,
                "--etc", folder.file("tls"), "--no-start",
            ])
        #expect(https.status == 0, "\(https.standardError)")
        #expect(https.standardOutput.contains("listens on 0.0.0.0:8443 with TLS"), "\(https.standardOutput)")
        let written = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: folder.file("tls/server.json")))) as? [String: Any])
        let tls = written["tls"] as? [String: String]
        let absolute = { URL(fileURLWithPath: $0).standardizedFileURL.path }
        #expect(tls?["certificate"] == absolute(certificates.serverCertificate), "\(tls ?? [:])")
        #expect(tls?["key"] == absolute(certificates.serverKey))
        #expect(written["allowPlainHTTP"] == nil)

        let proxied = try await ProcessRunner.scanpick(
            setup + ["--allow-plain-http", "--etc", folder.file("proxy"), "--no-start"])
        #expect(proxied.status == 0, "\(proxied.standardError)")
        let text = try String(contentsOfFile: folder.file("proxy/server.json"), encoding: .utf8)
        #expect(text.contains("\"allowPlainHTTP\" : true") || text.contains("\"allowPlainHTTP\":true"), "\(text)")

        let half = try await ProcessRunner.scanpick(
            setup + ["--tls-certificate", certificates.serverCertificate, "--etc", folder.file("half"), "--no-start"])
        #expect(half.status == 2)
        #expect(half.standardError.contains("--tls-certificate and --tls-key go together"), "\(half.standardError)")
        let both = try await ProcessRunner.scanpick(
            setup + [
                "--tls-certificate", certificates.serverCertificate, "--tls-key", certificates.serverKey,
                "--allow-plain-http", "--etc", folder.file("both"), "--no-start",
            ])
        #expect(both.status == 2)
        let missing = try await ProcessRunner.scanpick(
            setup + [
                "--tls-certificate", folder.file("nowhere.pem"), "--tls-key", certificates.serverKey,
                "--etc", folder.file("missing"), "--no-start",
            ])
        #expect(missing.status == 1, "a certificate that does not exist passed the check")
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing/server.json")))
    }

    /// The package installs example configs in /etc/scanpick: `setup` replaces one no one edited
    /// (equal to the package's shipped copy) without --force, and keeps an edited one.
    @Test func thePackagesUneditedExampleIsReplacedAnEditedOneKept() async throws {
        let folder = try TemporaryDirectory()
        let (etc, shipped) = (folder.file("etc"), folder.file("shipped"))
        let example = try String(contentsOfFile: Repository.root + "/packaging/etc/server.json", encoding: .utf8)
        for dir in [etc, shipped] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try example.write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        }
        let setup = [
            "setup", "server", "--database", folder.file("server.sqlite"), "--etc", etc, "--shipped", shipped,
            "--no-start",
        ]
        let made = try await ProcessRunner.scanpick(setup)
        #expect(made.status == 0, "\(made.standardError)")
        let written = try String(contentsOfFile: etc + "/server.json", encoding: .utf8)
        #expect(written.contains(folder.file("server.sqlite")))
        // An admin's edit is theirs: kept, and said so.
        try (example + " ").write(toFile: etc + "/server.json", atomically: true, encoding: .utf8)
        let kept = try await ProcessRunner.scanpick(setup)
        #expect(kept.status == 1)
        #expect(kept.standardError.contains("exists already"), "\(kept.standardError)")
        #expect(try String(contentsOfFile: etc + "/server.json", encoding: .utf8) == example + " ")
    }
}
