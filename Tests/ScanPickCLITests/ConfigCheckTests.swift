import Foundation
import TestSupport
import Testing

/// `scanpick config check` as an operator runs it before a restart: the start-up's checks and
/// messages, exit 0 or 1, without opening a database, a port or a device.
@Suite struct ConfigCheckTests {
    static let hash = String(repeating: "ab", count: 32)

    /// Checks as this user alone (as root, the check would also run as the services' user, who
    /// cannot enter a private test folder).
    static let asMe = ["--as-user", getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"]

    @Test func validServerAndStationConfigsAreDescribedWithTheirWarnings() async throws {
        let folder = try TemporaryDirectory()
        let server = try folder.write(
            "server.json", text: #"{"listen": "127.0.0.1:0", "database": "db/s.sqlite", "organisations": {}}"#)
        let checked = try await ProcessRunner.scanpick(["config", "check", "--config", server] + Self.asMe)
        #expect(checked.status == 0, "\(checked.standardError)")
        #expect(checked.standardOutput.contains("a valid server configuration (listens on 127.0.0.1:0 in plain HTTP"))
        #expect(checked.standardError.contains("warning: no organisations are configured"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("db")))  // nothing was opened or made

        _ = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let station = try folder.write(
            "station.json",
            text: #"""
                {"station": "s1", "worker": "w1", "server": "http://127.0.0.1:9", "camera": {"enabled": false},
                 "scanners": [{"device": "/dev/input/event3"}],
                 "organisations": {"acme": {"tokenFile": "acme.token", "scanning": {"enabled": true}}}}
                """#)
        let stationChecked = try await ProcessRunner.scanpick(["config", "check", "-c", station] + Self.asMe)
        #expect(stationChecked.status == 0, "\(stationChecked.standardError)")
        #expect(stationChecked.standardOutput.contains("a valid station configuration (station s1, worker w1"))
        #expect(stationChecked.standardOutput.contains("camera off, 1 handheld scanner"))
        #expect(stationChecked.standardError.isEmpty)
    }

    /// Server and station configs, and a station's token file, that every user can change are
    /// refused as start-up refuses them, naming the file and the fix.
    @Test func configsOthersCanChangeAreRefused() async throws {
        let folder = try TemporaryDirectory()
        let server = try folder.write(
            "server.json", text: #"{"listen": "127.0.0.1:0", "database": "s.sqlite", "organisations": {}}"#)
        let token = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let station = try folder.writePrivate(
            "station.json",
            bytes: Array(
                #"{"station": "s1", "worker": "w1", "server": "http://127.0.0.1:9", "organisations": {"acme": {"tokenFile": "acme.token"}}}"#
                    .utf8))
        for (file, writable) in [(server, server), (station, station), (station, token)] {
            chmod(writable, 0o666)
            let checked = try await ProcessRunner.scanpick(["config", "check", "-c", file] + Self.asMe)
            chmod(writable, 0o600)
            #expect(checked.status == 1, "\(file)")
            #expect(checked.standardError.contains("can be changed by every user"), "\(checked.standardError)")
            let name = (writable as NSString).lastPathComponent
            #expect(checked.standardError.contains("chmod o-w "), "\(checked.standardError)")
            #expect(checked.standardError.contains("/\(name)`"), "\(checked.standardError)")
        }
    }

    @Test func anInvalidConfigExits1WithTheStartUpMessage() async throws {
        let folder = try TemporaryDirectory()
        let cases: [(String, String, [String])] = [
            (#"{"station": "s", "wroker": "w"}"#, #""wroker" is not a known setting; did you mean "worker"?"#, []),
            ("{\n \"station\": \"s\",\n \"worker\": tru}", "this is not valid JSON at line 3, column 12", []),
            (
                #"{"listen": "0.0.0.0:8080", "organisations": {"acme": {"tokenSha256": ["\#(Self.hash)"]}}}"#,
                "in plain HTTP would send the organisations' bearer tokens over the network", []
            ),
            (
                #"{"listen": "127.0.0.1:8080", "organisations": {}, "tls": {"certificate": "missing.pem", "key": "k.pem"}}"#,
                "missing.pem", []
            ),
            (
                #"{"listen": "127.0.0.1:8080", "organisations": {}}"#,
                "\"station\" is required (this file looks like a server configuration: use --kind server",
                ["--kind", "station"]
            ),
            (
                #"{"listen": "127.0.0.1:8080", "database": "/nonexistent-scanpick/s.sqlite", "organisations": {}}"#,
                "\"database\" is in /nonexistent-scanpick, which does not exist: create it (mkdir -p /nonexistent-scanpick)",
                []
            ),
            // Naming the folder instead of the file: an existing folder, or any path ending in '/'.
            (#"{"listen": "127.0.0.1:8080", "database": ".", "organisations": {}}"#, "not a database file", []),
            (#"{"listen": "127.0.0.1:8080", "database": "nosuch/", "organisations": {}}"#, "not a database file", []),
            (#"{"listen": "127.0.0.1:8080", "database": "/dev/null", "organisations": {}}"#, "not a regular file", []),
            // A file that exists but is no SQLite database (SQLite would say "file is not a database"
            // at the first query, or a write would damage it).
            (
                #"{"listen": "127.0.0.1:8080", "database": "/etc/shadow", "organisations": {}}"#,
                "\"database\" names /etc/shadow, which is not a SQLite database", []
            ),
            (
                #"{"station": "s", "worker": "w", "server": "http://127.0.0.1:9", "database": "/etc/shadow", "organisations": {"a": {"token": "demo-acme-token"}}}"#,
                "\"database\" names /etc/shadow, which is not a SQLite database", []
            ),
        ]
        for (index, (json, message, options)) in cases.enumerated() {
            let file = try folder.write("c\(index).json", text: json)
            let checked = try await ProcessRunner.scanpick(["config", "check", "--config", file] + options)
            #expect(checked.status == 1, "\(json)")
            #expect(checked.standardError.contains(message), "\(checked.standardError)")
        }
    }

    /// A station config anyone may read, naming a token file only root may read (as `install -m
    /// 600` as root leaves it), in a folder anyone may enter.
    static func stationWithARootOnlyToken() throws -> (TemporaryDirectory, token: String, station: String) {
        let folder = try TemporaryDirectory()
        chmod(folder.path, 0o755)
        let token = try folder.writePrivate("acme.token", bytes: Array("a-real-token-0123456789\n".utf8))
        let station = try folder.write(
            "station.json",
            text:
                #"{"station": "s1", "worker": "w1", "server": "http://127.0.0.1:9", "organisations": {"acme": {"tokenFile": "acme.token"}}}"#
        )
        chmod(station, 0o644)
        return (folder, token, station)
    }

    /// The operator's most common start-up failure on a packaged install: a token file the service's
    /// user cannot read. The message names the file, its owner and mode, and who we run as.
    @Test(.enabled(if: getuid() == 0, "needs root to run the check as another user"))
    func anUnreadableTokenFileSaysPermissionDeniedAndWhose() async throws {
        let (folder, token, station) = try Self.stationWithARootOnlyToken()
        let checked = try await ProcessRunner.run(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", ProcessRunner.scanpick, "config", "check", "-c",
                station,
            ],
            in: folder.path)
        #expect(checked.status == 1)
        #expect(
            checked.standardError.contains(
                "\"organisations.acme.tokenFile\" cannot be read: /\(URL(fileURLWithPath: token).standardizedFileURL.path.dropFirst()) is not readable by this user (permission denied: owned by root:root, mode 0600; this process runs as nobody)"
            ), "\(checked.standardError)")
    }

    /// `sudo scanpick config check` (the README's install steps run it as root) checks again as the
    /// services' user: a token file only root can read passes as root and fails the service.
    @Test(.enabled(if: getuid() == 0, "needs root to check as another user"))
    func runAsRootItChecksAgainAsTheServicesUser() async throws {
        let (folder, token, station) = try Self.stationWithARootOnlyToken()
        defer { withExtendedLifetime(folder) {} }
        let checked = try await ProcessRunner.scanpick(["config", "check", "-c", station, "--as-user", "nobody"])
        #expect(checked.status == 1)
        #expect(checked.standardError.contains("valid for root, but not for nobody, whom the services run as"))
        #expect(
            checked.standardError.contains("permission denied: owned by root:root, mode 0600"),
            "\(checked.standardError)")
        // Once that user may read it, and create the queue's folder (var/, the default), both pass.
        chown(token, 65534, 65534)
        #expect(mkdir(folder.file("var"), 0o755) == 0 && chown(folder.file("var"), 65534, 65534) == 0)
        let fixed = try await ProcessRunner.scanpick(["config", "check", "-c", station, "--as-user", "nobody"])
        #expect(fixed.status == 0, "\(fixed.standardError)")
        let unknown = try await ProcessRunner.scanpick([
            "config", "check", "-c", station, "--as-user", "no-such-user-x",
        ])
        #expect(unknown.standardError.contains("there is no user named no-such-user-x"))
    }

    /// Root running a station command on the service's database would leave SQLite files only root
    /// can write, locking the service out: it is refused, naming the user to run it as.
    @Test(.enabled(if: getuid() == 0, "needs root"))
    func rootIsRefusedTheServicesDatabase() async throws {
        let folder = try TemporaryDirectory()
        chmod(folder.path, 0o755)
        let data = folder.file("data")
        #expect(mkdir(data, 0o750) == 0)
        #expect(chown(data, 65534, 65534) == 0)
        let station = try folder.writePrivate(
            "station.json",
            bytes: Array(
                #"{"station": "s1", "worker": "w1", "server": "http://127.0.0.1:9", "database": "data/station.sqlite", "organisations": {"acme": {"token": "t"}}}"#
                    .utf8))
        // (status: it would make the missing database, where `queue show` refuses one that does not exist)
        let refused = try await ProcessRunner.scanpick(["status", "--json", "--config", station])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("belongs to nobody: run this as that user (sudo -u nobody scanpick"))
        #expect(!FileManager.default.fileExists(atPath: data + "/station.sqlite"))  // nothing was created
    }

    /// The units run `config check` before they start: under systemd, why it refused is an `err`
    /// line of the journal (`journalctl -p warning` shows it), every line of it marked (here a pipe
    /// stands in for the journal's stream); on a terminal or a pipe the words are unmarked.
    @Test func aRefusalUnderSystemdIsAnErrLineOfTheJournal() async throws {
        let folder = try TemporaryDirectory()
        let broken = try folder.writePrivate("server.json", bytes: Array(#"{"listen": "127.0.0.1:0", "#.utf8))
        let journal = try await ProcessRunner.run(
            "/bin/sh",
            [
                "-c",
                #"JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" config check -c "$1" --as-user "$2""#,
                ProcessRunner.scanpick, broken, Self.asMe[1],
            ], in: folder.path, input: [])
        #expect(journal.status == 1)
        let lines = journal.standardError.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("<3>") }, "\(lines)")
        #expect(lines.first?.hasPrefix("<3>scanpick config check: ") == true, "\(lines)")

        let plain = try await ProcessRunner.scanpick(["config", "check", "-c", broken] + Self.asMe)
        #expect(plain.status == 1)
        #expect(plain.standardError.hasPrefix("scanpick config check: "), "\(plain.standardError)")
    }
}
