import Foundation
import HTTPServing
import Queue
import ScanPickClient
import TestSupport
import Testing
import Wire

/// A server that is not ours, or not well: the station reads at most `queue.maxAnswerBytes` of an
/// answer, and holds a batch to the API's own field rules before it keeps or shows it.
@Suite struct RogueServerTests {
    /// A real server on a free port answering each batch path with `answers[path]`.
    private func rogue(_ answers: [String: [UInt8]]) throws -> HTTPServer {
        try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            guard let body = answers[request.path] else { return HTTPResponse(status: 404) }
            return .json(200, body)
        }
    }

    private func batch(sku: String = "SKU-1", location: String = "A1", qty: Int = 2) throws -> [UInt8] {
        let task = PickTask(
            id: "t1", batchId: "b1", orderId: "o1", lineId: "l1", sku: sku, location: location,
            barcode: "4006381333931",
            qtyRequired: qty, qtyPicked: 0, qtyLocked: 0)
        return Array(try JSONEncoder().encode(Batch(id: "b1", tasks: [task], status: "open")))
    }

    @Test func anAnswerOverTheLimitOrBreakingTheFieldRulesIsRefused() async throws {
        let server = try rogue([
            "/api/batches/fine": try batch(),
            "/api/batches/huge": try batch(sku: String(repeating: "S", count: 3 << 20)),
            "/api/batches/long": try batch(sku: String(repeating: "S", count: 300)),
            "/api/batches/escape": try batch(location: "A1\u{1B}[2J\r\nB2"),
            "/api/batches/negative": try batch(qty: -5),
        ])
        defer { server.stop() }
        let client = ScanPickHTTPClient(
            server: try #require(URL(string: "http://127.0.0.1:\(server.address.port)")), tokens: ["acme": "t"],
            timeout: 10,
            maxAnswerBytes: 1 << 20)
        #expect(try await client.fetchBatch("fine", org: "acme").tasks.first?.sku == "SKU-1")
        for (id, expected) in [
            ("huge", "over 1048576 bytes"), ("long", "tasks[0].sku must be at most 200 characters"),
            ("escape", "tasks[0].location must not contain control characters"),
            ("negative", "tasks[0].qtyRequired must be from 0 to 100000, not -5"),
        ] {
            do {
                _ = try await client.fetchBatch(id, org: "acme")
                Issue.record("the \(id) batch was taken")
            } catch {
                guard case .untrustedAnswer(let reason) = error else {
                    Issue.record("\(id): \(error)")
                    continue
                }
                #expect(reason.contains(expected), "\(id): \(reason)")
                #expect("\(error)".hasPrefix("the server's answer was refused"))
            }
        }
    }

    /// A refusal that is not the API's (an empty 404 from a proxy, an HTML page with control
    /// characters) says so on one line, never "the server answered 404: " and nothing.
    @Test func aRefusalNotInTheAPIsShapeSaysWhatCameOnOneLine() async throws {
        let server = try HTTPServer(listen: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            switch request.path {
            case "/api/batches/page":
                HTTPResponse(
                    status: 403, headers: [("Content-Type", "text/html")],
                    body: Array("<h1>Denied</h1>\r\n\u{1B}[2J".utf8))
            case "/api/batches/coded":
                .json(409, Array(#"{"error": "batch_closed", "message": ""}"#.utf8))
            case "/api/batches/long":
                .json(400, Self.longMessage)
            case "/api/batches/api":
                .json(404, Array(#"{"error": "not_found", "message": "no batch b9"}"#.utf8))
            default:
                HTTPResponse(status: 404)
            }
        }
        defer { server.stop() }
        let client = ScanPickHTTPClient(
            server: try #require(URL(string: "http://127.0.0.1:\(server.address.port)")), tokens: ["acme": "t"],
            timeout: 10)
        for (id, expected) in [
            (
                "empty",
                "the server answered 404: no reason given (not the ScanPick API's answer: a proxy or another server?)"
            ),
            ("page", "the server answered 403: <h1>Denied</h1>   [2J"),
            ("api", "the server answered 404: no batch b9"),
            ("coded", "the server answered 409: refused with code batch_closed"),
        ] {
            do {
                _ = try await client.fetchBatch(id, org: "acme")
                Issue.record("the \(id) batch was taken")
            } catch {
                #expect("\(error)" == expected, "\(id)")
            }
        }
        do {
            _ = try await client.fetchBatch("long", org: "acme")
            Issue.record("the long batch was taken")
        } catch {
            // 5,000 combining marks on one letter are one Character: the bound is in code points.
            let reason = "\(error)"
            #expect(reason.unicodeScalars.count <= "the server answered 400: ".count + ScanPickHTTPClient.reasonLimit)
            #expect(!reason.unicodeScalars.contains("\u{2028}"))
        }
    }

    /// An API refusal whose message breaks its line (U+2028), then has 5,000 combining marks on one letter.
    static let longMessage = Array(
        (try? JSONSerialization.data(
            withJSONObject: ["error": "x", "message": "a\u{2028}b" + String(repeating: "\u{301}", count: 5000)]))
            ?? Data())

    @Test func theLimitIs16MiBUnlessTheStationConfigSaysOtherwise() {
        #expect(QueueOptions().maxAnswerBytes == 16 << 20)
    }
}
