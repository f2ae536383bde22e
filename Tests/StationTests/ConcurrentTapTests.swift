import Foundation
import Synchronization
import TestSupport
import Testing

/// Fifty taps at once on one task, from the station page and from `scanpick tap` processes, against
/// a real station and server: every tap is either counted exactly once or refused, never lost and
/// never an over-pick the server would turn into a dead letter.
@Suite struct ConcurrentTapTests {
    /// Z9 requires `required` units; 25 page taps and 25 `scanpick tap` processes pick one each.
    @Test(arguments: [30, 100])
    func fiftySimultaneousTapsAreEachCountedOnceOrRefused(required: Int) async throws {
        let fixture = try await StationFixture(bulkQty: required)
        let z9 = fixture.scenario.tasks[3]
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)

        // The processes first (each takes a moment to start), then the page's taps while they run.
        let processes = try (0..<25).map { _ in
            try TapProcess(["tap", "pick", z9, "--org", "acme", "--config", fixture.config])
        }
        let pageStatuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<25 {
                group.addTask {
                    try await page.post("/api/taps", json: ["pickTaskId": z9, "kind": "pick", "qty": 1]).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var processResults: [(status: Int32, standardError: String)] = []
        for process in processes { processResults.append(await process.wait()) }

        let accepted = pageStatuses.filter { $0 == 200 }.count + processResults.filter { $0.status == 0 }.count
        let refused = pageStatuses.filter { $0 == 422 }.count + processResults.filter { $0.status == 1 }.count
        #expect(accepted + refused == 50, "page: \(pageStatuses), processes: \(processResults.map(\.status))")
        #expect(accepted == min(50, required))
        #expect(processResults.filter { $0.status == 1 }.allSatisfy { $0.standardError.contains("over the") })
        #expect(try await fixture.pickList()[z9]?["qtyPicked"] as? Int == accepted)

        // The station drains on its own: nothing goes dead, and the server counts what was accepted.
        let drained = try await eventually {
            let status = try await page.get("/api/status").json
            return status["pending"] as? Int == 0 && status["inFlight"] as? Int == 0
        }
        #expect(drained)
        #expect(try await page.get("/api/status").json["dead"] as? Int == 0)
        #expect(try await fixture.scenario.picked(on: fixture.acme)[z9] == accepted)
        #expect(await station.stop() == 0)
    }

    @Test func quantitiesOutsideTheBoundsAreRefusedWithoutHarm() async throws {
        let fixture = try await StationFixture()
        let a1 = fixture.scenario.tasks[0]
        let station = try await StationProcess(config: fixture.config)
        let page = APIClient(station.page, token: nil)
        let huge = try await page.send(
            "POST", "/api/taps", body: Data(#"{"pickTaskId":"\#(a1)","kind":"pick","qty":9223372036854775807}"#.utf8))
        #expect(huge.status == 422)
        #expect(huge.errorCode == "invalid_quantity")
        for body in [
            #"{"pickTaskId":"\#(a1)","kind":"pick","qty":1e30}"#, #"{"pickTaskId":"\#(a1)","kind":"pick","qty":0}"#,
            #"{"pickTaskId":"\#(a1)","kind":"pick","qty":-3}"#, #"{"pickTaskId":"\#(a1)","kind":"pick","qty":1.5}"#,
            #"{"pickTaskId":"\#(a1)","kind":"setQty","from":0,"to":100001}"#,
            #"{"pickTaskId":"\#(a1)","kind":"setQty","from":-9223372036854775808,"to":1}"#,
        ] {
            let reply = try await page.send("POST", "/api/taps", body: Data(body.utf8))
            #expect(reply.status == 422, "\(body)")
            #expect(reply.errorCode == "invalid_quantity", "\(body)")
        }
        // Bodies that are not a tap are 400s that name the field, in words, not Swift's types.
        let long = String(repeating: "t", count: 60_000)
        for (body, message) in [
            (#"{"pickTaskId":"\#(a1)","kind":"pick","qty":"1"}"#, "field 'qty' must be a number"),
            (#"{"pickTaskId":"\#(a1)","qty":1}"#, "missing field 'kind'"),
            (#"{"pickTaskId":null,"kind":"pick","qty":1}"#, "field 'pickTaskId' must be a string, not null"),
            ("[]", "the request body must be a JSON object"), ("{", "the request body: the JSON ends early"),
            (#"{"pickTaskId":"\#(a1)","kind":"pick","qty":1e400}"#, "field 'qty' must be a whole number"),
            // An id the server would refuse is not looked up, nor echoed back whole.
            (#"{"pickTaskId":"\#(long)","kind":"pick","qty":1}"#, "pickTaskId must be"),
            (#"{"pickTaskId":"t\u202Eevil","kind":"pick","qty":1}"#, "pickTaskId must not contain"),
            // A key given twice, however it is written, is refused rather than one value guessed.
            (#"{"pickTaskId":"\#(a1)","kind":"pick","qty":1,"qty":7}"#, "qty is given twice"),
            (#"{"pickTaskId":"\#(a1)","kind":"pick","qty":1,"q\u0074y":7}"#, "qty is given twice"),
        ] {
            let reply = try await page.send("POST", "/api/taps", body: Data(body.utf8))
            #expect(reply.status == 400, "\(body)")
            let text = reply.json["message"] as? String ?? ""
            #expect(text.hasPrefix(message), "\(body): \(text)")
            #expect(!text.contains("DecodingError") && !text.contains("CodingKeys"), "\(text)")
            #expect(text.count < 400, "\(text.prefix(100))")
        }
        // The station is still there and nothing was queued.
        let status = try await page.get("/api/status")
        #expect(status.status == 200)
        #expect(status.json["pending"] as? Int == 0)
        #expect(try await page.post("/api/taps", json: ["pickTaskId": a1, "kind": "pick", "qty": 1]).status == 200)
        #expect(await station.stop() == 0)
    }
}

/// A `scanpick` process started now and waited for later, so many can run at once; waiting does
/// not hold a thread of the test's task pool.
final class TapProcess: Sendable {
    private let process: ChildProcess
    private let errorFile: String
    private let exited = ExitSignal()

    init(_ arguments: [String]) throws {
        errorFile = NSTemporaryDirectory() + "/scanpick-tap-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        guard let errors = FileHandle(forWritingAtPath: errorFile) else {
            throw ChildProcessError("cannot write \(errorFile)")
        }
        defer { try? errors.close() }  // the child has its own copy
        let exited = self.exited
        process = try ChildProcess(
            ProcessRunner.scanpick, arguments, in: Repository.root, standardError: errors.fileDescriptor,
            onExit: { _ in exited.fire() })
    }

    /// Waits for the exit; the status and what it wrote to standard error.
    func wait() async -> (status: Int32, standardError: String) {
        await exited.wait()
        process.waitUntilExit()  // already ended: returns at once
        defer { try? FileManager.default.removeItem(atPath: errorFile) }
        let text = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        return (process.terminationStatus, text)
    }
}

/// Fired once when a process ends; `wait()` returns after that, suspending rather than blocking.
final class ExitSignal: Sendable {
    private let state = Mutex<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func fire() {
        let waiter = state.withLock { state in
            state.done = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.done { state.waiter = continuation }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}
