import Foundation
import HTTPServing
import Queue
import ScanPickClient
import Synchronization
import TestSupport
import Testing
import Wire

/// The server can only tell which station sent a request if every request says so: each kind the
/// station's transport makes reaches a real listener carrying `X-ScanPick-Station`.
@Suite struct StationNameHeaderTests {
    @Test func everyKindOfRequestTheStationMakesNamesIt() async throws {
        let seen = Mutex<[(String, String?)]>([])
        let listener = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            seen.withLock { $0.append(("\(request.method) \(request.path)", request.headers["x-scanpick-station"])) }
            return HTTPResponse(status: 503, body: Array(#"{"error":"busy","message":"test"}"#.utf8))
        }
        defer { listener.stop() }
        let server = try #require(URL(string: "http://\(listener.address)"))
        let transport = ScanPickHTTPClient(server: server, tokens: ["acme": "t"], timeout: 5, station: "dock-3")
        let folder = try TemporaryDirectory()
        let queue = try ActionQueue(path: folder.file("station.sqlite"))
        let id = try queue.enqueue(.pick(org: "acme", pickTaskId: "t1", location: nil, qty: 1, worker: "w"))
        _ = await transport.deliver(try #require(try queue.action(id)))
        _ = try? await transport.fetchBatch("b1", org: "acme")
        _ = try? await transport.createBatch(BatchFilters(), org: "acme")
        _ = try? await transport.openBatches(org: "acme")
        _ = try? await transport.closeBatch("b1", org: "acme")
        _ = await transport.probe(timeout: 5)
        _ = await transport.sendHeartbeat(
            StationHeartbeat(
                station: "dock-3", heartbeatSeconds: 30, version: "test", online: true, pending: 0, inFlight: 0,
                dead: 0, oldestPendingAt: nil, lastSyncAt: nil, camera: "off", scanners: 0, batchId: nil,
                workerId: nil, attention: []),
            org: "acme")
        let requests = seen.withLock { $0 }
        let kinds = Set(requests.map(\.0))
        for expected in [
            "POST /api/picking/pick", "GET /api/batches/b1", "POST /api/batches", "GET /api/batches",
            "POST /api/batches/b1/close", "POST /api/stations/heartbeat",
        ] {
            #expect(kinds.contains(expected), "\(kinds.sorted())")
        }
        #expect(kinds.contains { $0.hasPrefix("GET /health") }, "\(kinds.sorted())")
        for (request, station) in requests { #expect(station == "dock-3", "\(request) named \(station ?? "nothing")") }
    }
}
