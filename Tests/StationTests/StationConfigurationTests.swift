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
        for (name, text) in files { try folder.write(name, text: text) }
        let path = try folder.write("station.json", text: json)
        return try withExtendedLifetime(folder) { try StationConfiguration.load(path: path, environment: environment) }
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
        #expect(try load(minimal).organisations["acme"]?.symbologies == Symbology.defaults)
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
    ])
    func badConfigurationNamesTheKey(json: String, key: String) throws {
        do {
            _ = try load(json)
            Issue.record("accepted a bad configuration")
        } catch let error as ConfigError {
            #expect(error.key == key, "\(error)")
        }
    }
}

enum QueueDefaults {
    static let options = Queue.QueueOptions()
}
