import Digest
import Foundation
import HTTPServing
import Logging
import TestSupport
import Testing
import Wire

@testable import Server

/// What the head check lets through is trusted by the router only for that same head and that
/// same API: a head changed on its way (its path, token, station or repeated headers) or an admission made by another
/// API is checked again, so a stale admission can never stand in for authentication.
@Suite struct HeadAdmissionTests {
    func api(_ folder: TemporaryDirectory, _ name: String, organisations: [String: [String]]) throws -> ScanPickAPI {
        try ScanPickAPI(
            configuration: ServerConfiguration(
                listen: ListenAddress(host: "127.0.0.1", port: 0), database: .sqlite(path: folder.file(name)),
                organisations: organisations),
            logger: .discarding)
    }

    func errorCode(_ response: HTTPResponse) throws -> String? {
        (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["error"] as? String
    }

    @Test func anUnchangedHeadIsAnsweredAsItsCheckFoundIt() throws {
        let folder = try TemporaryDirectory()
        let acme = try api(folder, "a.sqlite", organisations: ["acme": [SHA256.hex(of: "t")]])
        var head = HTTPRequest(method: "GET", path: "/api/batches/b1", headers: ["authorization": "Bearer t"])
        #expect(acme.checkHead(&head) == nil)
        #expect(head.admission != nil)
        let answer = acme.handle(head)
        #expect(answer.status == 404)  // authenticated as acme, and acme has no batch b1
        #expect(try errorCode(answer) == "not_found")
    }

    @Test func theBearerSchemeIsReadInAnyCaseAndNothingElsePasses() throws {
        let folder = try TemporaryDirectory()
        let acme = try api(folder, "a.sqlite", organisations: ["acme": [SHA256.hex(of: "t")]])
        func admitted(_ authorization: String) -> Bool {
            var head = HTTPRequest(method: "GET", path: "/api/batches/b1", headers: ["authorization": authorization])
            return acme.checkHead(&head) == nil
        }
        for accepted in ["Bearer t", "bearer t", "BEARER t", "bEaReR   t"] {
            #expect(admitted(accepted), "\(accepted)")
        }
        for refused in [
            "Basic t", "Bearer", "Bearer ", "Bearert", "Bearer u", "Bearer\tt", "Bearer t ", "Béarer t", "",
        ] {
            #expect(!admitted(refused), "\(refused)")
        }
    }

    @Test func aHeadChangedAfterItsCheckIsCheckedAgain() throws {
        let folder = try TemporaryDirectory()
        let acme = try api(folder, "a.sqlite", organisations: ["acme": [SHA256.hex(of: "t")]])

        var movedPath = HTTPRequest(method: "GET", path: "/health")
        #expect(acme.checkHead(&movedPath) == nil)  // no token needed for /health
        movedPath.path = "/api/batches/b1"
        #expect(acme.handle(movedPath).status == 401)  // not answered as /health

        var otherToken = HTTPRequest(method: "GET", path: "/api/batches/b1", headers: ["authorization": "Bearer t"])
        #expect(acme.checkHead(&otherToken) == nil)
        otherToken.headers["authorization"] = "Bearer wrong"
        #expect(acme.handle(otherToken).status == 401)

        var otherStation = HTTPRequest(
            method: "GET", path: "/api/batches/b1",
            headers: ["authorization": "Bearer t", StationIdentity.header.lowercased(): "station-1"])
        #expect(acme.checkHead(&otherStation) == nil)
        otherStation.headers[StationIdentity.header.lowercased()] = "bad\u{1}name"
        let refused = acme.handle(otherStation)
        #expect(refused.status == 400)
        #expect(try errorCode(refused) == "invalid_station")

        var repeated = HTTPRequest(method: "GET", path: "/api/batches/b1", headers: ["authorization": "Bearer t"])
        #expect(acme.checkHead(&repeated) == nil)
        repeated.repeatedHeaders = ["authorization"]
        #expect(acme.handle(repeated).status == 400)
    }

    @Test func anAdmissionIsTrustedOnlyByTheAPIThatMadeIt() throws {
        let folder = try TemporaryDirectory()
        let acme = try api(folder, "a.sqlite", organisations: ["acme": [SHA256.hex(of: "t")]])
        let other = try api(folder, "b.sqlite", organisations: ["other": [SHA256.hex(of: "u")]])
        var head = HTTPRequest(method: "GET", path: "/api/batches/b1", headers: ["authorization": "Bearer t"])
        #expect(acme.checkHead(&head) == nil)
        #expect(other.handle(head).status == 401)  // "t" names no organisation of this API
    }
}
