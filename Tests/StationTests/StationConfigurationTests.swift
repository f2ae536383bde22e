import Capture
import ConfigFile
import Foundation
import Queue
import Scanning
import TestSupport
import Testing

@testable import Station

@Suite struct StationConfigurationTests {
    func load(_ json: String, files: [String: String] = [:], environment: [String: String] = [:]) throws
        -> StationConfiguration
    {
        let folder = try TemporaryDirectory()
        for (name, text) in files { try folder.writePrivate(name, bytes: Array(text.utf8)) }
        let path = try folder.writePrivate("station.json", bytes: Array(json.utf8))
        return try withExtendedLifetime(folder) { try StationConfiguration.load(path: path, environment: environment) }
    }

    /// A small valid station config as JSON, with `changes` over it.
    static func config(_ changes: [String: Any]) throws -> String {
        var settings: [String: Any] = [
            "station": "s", "worker": "w", "server": "http://x", "organisations": ["a": ["token": "t"]],
        ]
        settings.merge(changes) { _, new in new }
        return String(decoding: try JSONSerialization.data(withJSONObject: settings), as: UTF8.self)
    }

    /// How loading ``config(_:)`` with `changes` fails, or nil when it loads.
    func refusal(of changes: [String: Any]) throws -> ConfigError? {
        do {
            _ = try load(try Self.config(changes))
            return nil
        } catch let error as ConfigError {
            return error
        }
    }

    let minimal =
        #"{"station": "bench-1", "worker": "w3", "server": "http://127.0.0.1:8080", "organisations": {"acme": {"token": "t"}}}"#

    @Test func defaultsFillWhatIsNotGiven() throws {
        let config = try load(minimal)
        #expect(config.station == "bench-1")
        #expect(config.queue == QueueDefaults.options)
        #expect(config.databasePath.hasSuffix("/var/station.sqlite"))
        #expect(config.organisations["acme"]?.scanningEnabled == false)
        #expect(config.tokens == ["acme": "t"])
    }

    @Test func scanToSelectAndSupportSignInAreRead() throws {
        let defaults = try load(minimal)
        #expect(defaults.scanToSelect == true)
        #expect(defaults.support.isConfigured == false)
        let pin = String(repeating: "a1", count: 32)
        let config = try load(
            try Self.config([
                "scanning": ["scanToSelect": false],
                "support": ["badgePattern": "^SUP-(.+)$", "pinSha256": [pin]],
            ]))
        #expect(config.scanToSelect == false)
        #expect(config.support.badgePattern?.value(in: "SUP-jo") == "jo")
        #expect(config.support.pinSha256 == [pin])
        #expect(config.support.isConfigured)
        let short = try #require(try refusal(of: ["support": ["pinSha256": ["1234"]]]))
        #expect(short.description.contains("\"support.pinSha256\" must hold 64-character lower-case hex SHA-256"))
        #expect(short.description.contains("printf %s PIN | sha256sum"))
        let upper = try refusal(of: ["support": ["pinSha256": [pin.uppercased()]]])
        #expect(upper?.description.contains("support.pinSha256") == true)
        let pattern = try refusal(of: ["support": ["badgePattern": "(unclosed"]])
        #expect(pattern?.description.contains("support.badgePattern") == true)
        let same = try refusal(of: ["workerBadgePattern": "^W-(.+)$", "support": ["badgePattern": "^W-(.+)$"]])
        #expect(same?.description.contains("a support badge must be told from a picker's") == true)
        let typo = try refusal(of: ["scanning": ["scanToSelekt": false]])
        #expect(typo?.description.contains("scanToSelect") == true)
        let notBool = try refusal(of: ["scanning": ["scanToSelect": "no"]])
        #expect(notBool?.description.contains("scanning.scanToSelect") == true)
    }

    @Test func tokensComeFromTheConfigAFileOrTheEnvironment() throws {
        let config = try load(
            #"{"station": "s", "worker": "w", "server": "https://api.example", "database": "db/s.sqlite", "queue": {"backoffCapSeconds": 30, "requestTimeoutSeconds": 5}, "organisations": {"a": {"tokenFile": "secret/a.token", "scanning": {"enabled": true}}, "b": {"tokenEnv": "B_TOKEN"}}}"#,
            files: ["secret/a.token": "file-token\n"], environment: ["B_TOKEN": "env-token"])
        #expect(config.tokens == ["a": "file-token", "b": "env-token"])
        #expect(config.organisations["a"]?.scanningEnabled == true)
        #expect(config.queue.backoffCap == 30)
        #expect(config.queue.requestTimeout == 5)
        #expect(config.databasePath.hasSuffix("/db/s.sqlite"))
    }

    @Test func scanningTakesTheOrganisationsSymbologiesDebounceAndCamera() throws {
        let config = try load(
            #"{"station": "s", "worker": "w", "server": "http://x", "debounce": {"eanUpcFrames": 3, "holdOffSeconds": 2}, "camera": {"device": "/dev/v4l/by-id/usb-cam", "width": 640, "height": 480}, "organisations": {"a": {"token": "t", "scanning": {"enabled": true, "symbologies": ["ean13", "qrcode"]}}}}"#
        )
        #expect(config.organisations["a"]?.symbologies == [.ean13, .qrcode])
        #expect(config.debounce.eanUpcFrames == 3)
        #expect(config.debounce.otherFrames == 1)
        #expect(config.debounce.holdOff == 2)
        #expect(config.camera.device == "/dev/v4l/by-id/usb-cam")
        #expect(config.camera.width == 640)
        #expect(config.camera.fps == 30)
        #expect(config.camera.scanLineSpacing == ReaderOptions.cameraScanLineSpacing)
        #expect(try load(minimal).organisations["acme"]?.symbologies == Symbology.defaults)
        let everyLine = try load(
            #"{"station": "s", "worker": "w", "server": "http://x", "camera": {"scanLineSpacing": 1}, "organisations": {"a": {"token": "t"}}}"#
        )
        #expect(everyLine.camera.scanLineSpacing == 1)
    }

    @Test func handheldScannersTakeTheirDeviceTerminatorKeyGapAndGroupSeparator() throws {
        let config = try load(
            #"{"station": "s", "worker": "w", "server": "http://x", "camera": {"enabled": false}, "scanners": [{"device": "/dev/scanpick/scanner-a"}, {"device": "/dev/input/event7", "terminator": "tab", "maxKeyGapMilliseconds": 120, "groupSeparator": "~"}], "organisations": {"a": {"token": "t"}}}"#
        )
        #expect(!config.camera.enabled)
        #expect(config.scanners.map(\.device) == ["/dev/scanpick/scanner-a", "/dev/input/event7"])
        #expect(config.scanners[0].decoding == KeyCodeDecoder.Options())
        #expect(config.scanners[1].decoding.terminator == KeyCode.tab)
        #expect(config.scanners[1].decoding.maxGap == 0.12)
        #expect(config.scanners[1].decoding.groupSeparator == "~")
        #expect(try load(minimal).scanners.isEmpty)
        #expect(try load(minimal).camera.enabled)
        let nine = Array(repeating: #"{"device": "/dev/input/event1"}"#, count: 9).joined(separator: ",")
        #expect(throws: ConfigError.self) {
            try load(
                #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [\#(nine)], "organisations": {"a": {"token": "t"}}}"#
            )
        }
    }

    @Test(arguments: [
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "organisations": {"a": {"token": "t", "scanning": {"symbologies": ["ean99"]}}}}"#,
            "organisations.a.scanning.symbologies"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "camera": {"fps": 0}, "organisations": {"a": {"token": "t"}}}"#,
            "camera.fps"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "camera": {"scanLineSpacing": 9}, "organisations": {"a": {"token": "t"}}}"#,
            "camera.scanLineSpacing"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "debounce": {"holdOff": 1}, "organisations": {"a": {"token": "t"}}}"#,
            "debounce.holdOff"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "organisations": {"a": {"token": "t"}}, "camera": 1}"#,
            "camera"
        ),
        (#"{"station": "s", "worker": "w", "server": "ftp://x", "organisations": {"a": {"token": "t"}}}"#, "server"),
        (#"{"worker": "w", "server": "http://x", "organisations": {"a": {"token": "t"}}}"#, "station"),
        (#"{"station": "s", "worker": "w", "server": "http://x", "organisations": {}}"#, "organisations"),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "organisations": {"a": {}}}"#,
            "organisations.a.token"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "organisations": {"a": {"token": "t", "tokenEnv": "X"}}}"#,
            "organisations.a.token"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "organisations": {"a": {"tokenEnv": "UNSET"}}}"#,
            "organisations.a.tokenEnv"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "organisations": {"a": {"token": "t", "scanning": {"enabled": "yes"}}}}"#,
            "organisations.a.scanning.enabled"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "queue": {"requestTimeoutSeconds": 0.5}, "organisations": {"a": {"token": "t"}}}"#,
            "queue.requestTimeoutSeconds"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "queue": {"backoffInitialSeconds": 9, "backoffCapSeconds": 3}, "organisations": {"a": {"token": "t"}}}"#,
            "queue.backoffCapSeconds"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "queue": {"drainEvery": 3}, "organisations": {"a": {"token": "t"}}}"#,
            "queue.drainEvery"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [{"device": "input/event3"}], "organisations": {"a": {"token": "t"}}}"#,
            "scanners[0].device"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [{"device": "/dev/input/event3", "terminator": "space"}], "organisations": {"a": {"token": "t"}}}"#,
            "scanners[0].terminator"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [{}, {"device": "/dev/x"}], "organisations": {"a": {"token": "t"}}}"#,
            "scanners[0].device"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [{"device": "/dev/x", "groupSeparator": "\u001d"}], "organisations": {"a": {"token": "t"}}}"#,
            "scanners[0].groupSeparator"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [{"device": "/dev/x", "groupSeparator": "0"}], "organisations": {"a": {"token": "t"}}}"#,
            "scanners[0].groupSeparator"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [{"device": "/dev/../etc/shadow"}], "organisations": {"a": {"token": "t"}}}"#,
            "scanners[0].device"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": [{"device": "/dev/input/event3"}, {"device": "/dev/input/./event3"}], "organisations": {"a": {"token": "t"}}}"#,
            "scanners[1].device"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "scanners": {"device": "/dev/x"}, "organisations": {"a": {"token": "t"}}}"#,
            "scanners"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "database": "/nonexistent-scanpick/q.sqlite", "organisations": {"a": {"token": "t"}}}"#,
            "database"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "tls": {"caFile": "/etc/hostname"}, "organisations": {"a": {"token": "t"}}}"#,
            "tls.caFile"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "tls": {"cafile": "x.pem"}, "organisations": {"a": {"token": "t"}}}"#,
            "tls.cafile"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "batchLabelPattern": "(", "organisations": {"a": {"token": "t"}}}"#,
            "batchLabelPattern"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "workerBadgePattern": "", "organisations": {"a": {"token": "t"}}}"#,
            "workerBadgePattern"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "workers": [{"id": "a", "name": "A"}, {"id": "a", "name": "B"}], "organisations": {"a": {"token": "t"}}}"#,
            "workers[1].id"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "workers": [{"id": "a"}], "organisations": {"a": {"token": "t"}}}"#,
            "workers[0].name"
        ),
        (
            #"{"station": "s", "worker": "w", "server": "http://x", "requireSignIn": "yes", "organisations": {"a": {"token": "t"}}}"#,
            "requireSignIn"
        ),
    ])
    func badConfigurationNamesTheKey(json: String, key: String) throws {
        do {
            _ = try load(json)
            Issue.record("accepted a bad configuration")
        } catch let error as ConfigError {
            #expect(error.key == key, "\(error)")
        }
    }

    /// Foundation says only "The value is invalid" of a bad pattern; the message says what is wrong.
    @Test func aBadLabelPatternSaysWhatIsWrongWithIt() throws {
        #expect(throws: LabelPatternError.self) { try LabelPattern("^BATCH-(") }
        do {
            _ = try LabelPattern("^BATCH-(")
        } catch {
            #expect(error.problem.hasPrefix("is not a regular expression ("), "\(error)")
            #expect(!error.problem.contains("The value is invalid"), "\(error)")
        }
    }

    @Test func signInAndLabelPatternsLoad() throws {
        let config = try load(
            #"{"station": "s", "worker": "w", "server": "http://x", "requireSignIn": true, "workerBadgePattern": "^W-([0-9]{3,6})$", "batchLabelPattern": "^BATCH-", "workers": [{"id": "w-7", "name": "Ana"}], "organisations": {"a": {"token": "t"}}}"#
        )
        #expect(config.requireSignIn)
        #expect(config.workers == [StationConfiguration.Worker(id: "w-7", name: "Ana")])
        // The first capture group is the value; without one, the whole code.
        #expect(config.workerBadgePattern?.value(in: "W-0042") == "0042")
        #expect(config.workerBadgePattern?.value(in: "W-42") == nil)
        #expect(config.batchLabelPattern?.value(in: "BATCH-b7") == "BATCH-b7")
        #expect(config.batchLabelPattern?.value(in: "036000291452") == nil)
        let defaults = try load(minimal)
        #expect(!defaults.requireSignIn && defaults.workerBadgePattern == nil && defaults.workers.isEmpty)
    }

    /// `worker` is every action's workerId: one the server would refuse (empty, a bidirectional
    /// override, over 200 characters) is a config error, not a backlog of dead letters.
    @Test(arguments: ["", "w\u{202E}3", "line\nbreak", String(repeating: "w", count: 201)])
    func aWorkerTheServerWouldRefuseIsAConfigError(worker: String) throws {
        let error = try #require(try refusal(of: ["worker": worker]), "accepted worker \(worker.debugDescription)")
        #expect(error.key == "worker", "\(error)")
        #expect(error.problem.contains("workerId"), "\(error)")
        #expect(try load(minimal).worker == "w3")
    }

    /// A server no request can reach is a config error at start, not a queue waiting as "offline".
    @Test(arguments: [
        ("http://127.0.0.1:99999", "has port 99999"), ("http://127.0.0.1:0", "has port 0"),
        ("ftp://server", "must be an http:// or https:// URL"), ("http://", "must be an http:// or https:// URL"),
        ("server:8080", "must be an http:// or https:// URL"),
    ])
    func aServerNoRequestCanReachIsAConfigError(server: String, problem: String) throws {
        let error = try #require(try refusal(of: ["server": server]), "accepted server \(server)")
        #expect(error.key == "server", "\(error)")
        #expect(error.problem.hasPrefix(problem), "\(error)")
        let fine = "HTTPS://api.example:65535/scanpick"
        #expect(try load(try Self.config(["server": fine])).server.absoluteString == fine)
    }

    /// An organisation's name is text that log lines, the page and metrics labels carry.
    @Test(arguments: ["", "line\nbreak", "o\u{202E}rg", String(repeating: "o", count: 65)])
    func anUnusableOrganisationNameIsAConfigError(name: String) throws {
        let error = try #require(
            try refusal(of: ["organisations": [name: ["token": "t"]]]), "accepted organisation \(name.debugDescription)"
        )
        #expect(error.key == "organisations", "\(error)")
        #expect(error.problem.hasPrefix("the organisation name"), "\(error)")
    }

    /// `station` goes out as `X-ScanPick-Station`, which the server refuses unless it is 1–64
    /// visible ASCII characters; `heartbeatSeconds` is 1–3600, 30 when not given.
    @Test(arguments: ["", "two words", "é", "tab\tname", String(repeating: "s", count: 65)])
    func aStationNameTheServerWouldRefuseIsAConfigError(station: String) throws {
        let error = try #require(try refusal(of: ["station": station]), "accepted station \(station.debugDescription)")
        #expect(error.key == "station", "\(error)")
        #expect(error.problem.contains("X-ScanPick-Station"), "\(error)")
        #expect(try load(minimal).heartbeatSeconds == 30)
        let every = minimal.replacingOccurrences(of: #""worker""#, with: #""heartbeatSeconds": 3600, "worker""#)
        #expect(try load(every).heartbeatSeconds == 3600)
        for bad in ["0", "3601", "1.5", "\"30\""] {
            let json = minimal.replacingOccurrences(of: #""worker""#, with: #""heartbeatSeconds": \#(bad), "worker""#)
            #expect(throws: ConfigError.self, "\(bad)") { try load(json) }
        }
    }

    @Test func filesHoldingARealTokenMustBeTheOwnersAlone() throws {
        let folder = try TemporaryDirectory()
        func load(_ json: String, mode: mode_t) throws -> StationConfiguration {
            let path = try folder.write("station.json", text: json)
            chmod(path, mode)
            return try StationConfiguration.load(path: path)
        }
        func refusal(_ body: () throws -> StationConfiguration) -> String {
            do {
                _ = try body()
                return "accepted"
            } catch {
                return String(describing: error)
            }
        }
        let config = folder.file("station.json")
        #expect(refusal { try load(minimal, mode: 0o644) }.contains("chmod 600 \(config)"))
        #expect(refusal { try load(minimal, mode: 0o640) }.contains("readable by other users"))
        #expect(try load(minimal, mode: 0o600).tokens == ["acme": "t"])

        // A token file: the file must be private; the config naming it may be readable.
        let tokenFile = try folder.write("acme.token", text: "real-token\n")
        chmod(tokenFile, 0o644)
        let viaFile =
            #"{"station": "s", "worker": "w", "server": "http://x", "organisations": {"acme": {"tokenFile": "acme.token"}}}"#
        #expect(refusal { try load(viaFile, mode: 0o644) }.contains("is readable by other users; run `chmod 600 /"))
        #expect(refusal { try load(viaFile, mode: 0o644) }.hasSuffix("acme.token`"))
        chmod(tokenFile, 0o600)
        #expect(try load(viaFile, mode: 0o644).tokens == ["acme": "real-token"])

        // A token file that is a symbolic link is refused, naming the real file: whoever can change
        // the link (or its folder) chooses the secret, and chmod advice would go to the wrong file.
        let real = try folder.writePrivate("real.token", bytes: Array("real-token\n".utf8))
        symlink(real, folder.file("linked.token"))
        let viaLink = viaFile.replacingOccurrences(of: "acme.token", with: "linked.token")
        let linked = refusal { try load(viaLink, mode: 0o600) }
        #expect(linked.contains("linked.token is a symbolic link to /"), "\(linked)")
        #expect(linked.hasSuffix("/real.token in the config"), "\(linked)")

        // The README's demo token is exempt: the repository's example config is readable by all.
        let demo = minimal.replacingOccurrences(of: #""token": "t""#, with: #""token": "demo-acme-token""#)
        #expect(try load(demo, mode: 0o644).tokens == ["acme": "demo-acme-token"])
        #expect(try StationConfiguration.load(path: Repository.root + "/config/station.json").tokens.count == 1)
    }

    @Test func servingTheNetworkNeedsAPrivatePageSecret() throws {
        let folder = try TemporaryDirectory()
        func load(page: String) throws -> StationConfiguration {
            let path = try folder.writePrivate(
                "station.json",
                bytes: Array(
                    #"{"station": "s", "worker": "w", "server": "http://x", "page": \#(page), "organisations": {"a": {"token": "t"}}}"#
                        .utf8))
            return try StationConfiguration.load(path: path)
        }
        #expect(throws: ConfigError.self) { try load(page: #"{"listen": "0.0.0.0:8377", "allowRemote": true}"#) }
        let secret = try folder.write("page.secret", text: "0123456789abcdef-secret\n")
        chmod(secret, 0o644)
        let remote = #"{"listen": "0.0.0.0:8377", "allowRemote": true, "tokenFile": "page.secret"}"#
        #expect(throws: ConfigError.self) { try load(page: remote) }
        chmod(secret, 0o600)
        #expect(try load(page: remote).page.secret == "0123456789abcdef-secret")
        try folder.writePrivate("page.secret", bytes: Array("short".utf8))
        #expect(throws: ConfigError.self) { try load(page: remote) }
        let hosts = try load(page: #"{"allowedHosts": ["Station-7.Example", "[fe80::1]"]}"#).page.allowedHosts
        #expect(hosts == ["station-7.example", "[fe80::1]"])
        #expect(throws: ConfigError.self) { try load(page: #"{"allowedHosts": ["evil.example/path"]}"#) }
    }
}

enum QueueDefaults {
    static let options = Queue.QueueOptions()
}
