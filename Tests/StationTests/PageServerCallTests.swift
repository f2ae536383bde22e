import Foundation
import TestSupport
import Testing

@testable import Station

/// The page's routes that call the server (`GET /api/batches`, `POST /api/batches/{id}/open`)
/// answer from a task once the server has, against a real server behind a proxy that holds its
/// answers: at most ``StationPage/maxServerCalls`` at once, the next turned away at once, and the
/// page answers everything else meanwhile.
@Suite struct PageServerCallTests {
    @Test func callsToASlowServerAreBoundedAndHoldUpNothingElse() async throws {
        let fixture = try await StationFixture(
            openBatch: false, viaProxy: true, stationConfig: ["queue": ["requestTimeoutSeconds": 60]])
        let proxy = try #require(fixture.proxy)
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let id = fixture.scenario.batchId
        proxy.holdAnswers(to: "/api/batches")

        let listings = (0..<StationPage.maxServerCalls).map { _ in Task { try await page.get("/api/batches") } }
        var waited = 0
        while proxy.heldAnswers < StationPage.maxServerCalls, waited < 600 {  // the server has answered them
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(proxy.heldAnswers == StationPage.maxServerCalls)

        let third = try await page.get("/api/batches")
        #expect(third.status == 503)
        #expect(third.json["error"] as? String == "busy")
        // The page's workers are free: taps, the status and the pick list answer as ever, several at once.
        let others = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<(StationPage.limits.workerThreads * 2) {
                group.addTask { try await page.get("/api/status").status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(others.allSatisfy { $0 == 200 })
        // A checked request never reaches the server: refused at once, whatever the calls under way.
        let hostile = try await page.post("/api/batches/a%20b/open", json: [:] as [String: Any])
        #expect(hostile.status == 400)

        proxy.releaseHeldAnswers()
        for listing in listings {
            let listed = try await listing.value
            #expect(listed.status == 200)
            #expect(listed.json["fromCache"] as? Bool == false)
            #expect((listed.json["batches"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        }
        // The calls are over: the next is let in, and a batch opens.
        let opened = try await page.post("/api/batches/\(id)/open", json: [:] as [String: Any])
        #expect(opened.status == 200)
        #expect(opened.json["batchId"] as? String == id)
        #expect(await station.stop() == 0)
    }
}
