import Capture
import Foundation
import Queue
import Scanning
import TestSupport
import Testing

@testable import Station

/// Each default of `config/station.json` is written once, in its options type; the loader and the
/// README's configuration table must agree with it.
@Suite struct ConfigurationDefaultsTests {
    @Test func emptyObjectsLoadTheOptionsTypesOwnDefaults() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write(
            "station.json",
            text: #"""
                {"station": "s", "worker": "w", "server": "http://127.0.0.1:9", "queue": {}, "debounce": {},
                 "camera": {}, "page": {}, "organisations": {"acme": {"token": "demo-acme-token"}}}
                """#)
        let configuration = try StationConfiguration.load(path: path)
        #expect(configuration.queue == QueueOptions())
        #expect(configuration.debounce == Debouncer.Options())
        #expect(configuration.camera == StationConfiguration.CameraSettings())
        #expect(configuration.page == StationConfiguration.PageSettings())
        #expect(configuration.databasePath.hasSuffix("/" + StationConfiguration.defaultDatabasePath))
        #expect(configuration.heartbeatSeconds == StationConfiguration.defaultHeartbeatSeconds)
        #expect(configuration.requireSignIn == StationConfiguration.defaultRequireSignIn)
    }

    @Test func theReadmeTableStatesTheCodesDefaults() throws {
        let table = try DocumentTable.rows(containing: "queue.backoffInitialSeconds")
        let queue = QueueOptions()
        let debounce = Debouncer.Options()
        let camera = StationConfiguration.CameraSettings()
        let page = StationConfiguration.PageSettings()
        let scanner = KeyCodeDecoder.Options()
        let terminator = try #require(StationConfiguration.terminatorKeys.first { $0.value == scanner.terminator }?.key)
        let expected: [String: String] = [
            "`heartbeatSeconds`": "\(StationConfiguration.defaultHeartbeatSeconds)",
            "`database`": "`\(StationConfiguration.defaultDatabasePath)`",
            "`queue.backoffInitialSeconds`": DocumentTable.number(queue.backoffInitial),
            "`queue.backoffCapSeconds`": DocumentTable.number(queue.backoffCap),
            "`queue.drainIntervalSeconds`": DocumentTable.number(queue.drainInterval),
            "`queue.requestTimeoutSeconds`": DocumentTable.number(queue.requestTimeout),
            "`queue.sentRetentionHours`": DocumentTable.number(queue.sentRetention / 3600),
            "`queue.stuckAfterMinutes`": DocumentTable.number(queue.stuckAfter / 60),
            "`debounce.eanUpcFrames`": "\(debounce.eanUpcFrames)",
            "`debounce.otherFrames`": "\(debounce.otherFrames)",
            "`debounce.holdOffSeconds`": DocumentTable.number(debounce.holdOff),
            "`camera.enabled`": "\(camera.enabled)",
            "`camera.device`": "`\(camera.device)`",
            "`camera.width`, `camera.height`": "\(camera.width), \(camera.height)",
            "`camera.fps`": "\(camera.fps)",
            "`camera.scanLineSpacing`": "\(camera.scanLineSpacing)",
            "`page.listen`": "`\(page.listen)`",
            "`page.allowRemote`": "\(page.allowRemote)",
            "`scanners[].terminator`": "`\"\(terminator)\"`",
            "`scanners[].maxKeyGapMilliseconds`": DocumentTable.number(scanner.maxGap * 1000),
            "`requireSignIn`": "\(StationConfiguration.defaultRequireSignIn)",
        ]
        for (key, value) in expected {
            #expect(table[key] == value, "README row \(key)")
        }
    }
}
