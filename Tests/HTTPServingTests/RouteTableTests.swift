import Foundation
import Testing

@testable import HTTPServing

/// How a path and method find their route, and what a miss answers.
@Suite struct RouteTableTests {
    enum Route: Equatable, Sendable {
        case list
        case create
        case show(String)
        case void(String)
    }

    let table = RouteTable<Route>([
        ("GET", "/things", { _ in .list }),
        ("POST", "/things", { _ in .create }),
        ("GET", "/things/{}", { .show($0[0]) }),
        ("POST", "/things/{}/void", { .void($0[0]) }),
    ])

    @Test func methodAndPathPickTheRouteAndCaptureSegments() throws {
        #expect(try table.match(method: "GET", path: "/things") == .list)
        #expect(try table.match(method: "POST", path: "/things") == .create)
        // The server leaves %2F and %25 encoded for the router: a slash stays inside its segment.
        #expect(try table.match(method: "GET", path: "/things/t%2F1") == .show("t/1"))
        #expect(try table.match(method: "POST", path: "/things/x%2Fvoid/void") == .void("x/void"))
        #expect(try table.match(method: "GET", path: "/things/a%252F") == .show("a%2F"))  // decoded once
        #expect(try table.match(method: "GET", path: "/things/b%00c") == .show("b%00c"))  // NUL stays encoded
        #expect(try table.match(method: "POST", path: "/things/t7/void") == .void("t7"))
    }

    /// Paths without `{}` are looked up whole; the answer must be the one the table's order gives.
    @Test func aPathLookedUpWholeGetsWhatTheTablesOrderGives() throws {
        enum Shadowed: Equatable, Sendable {
            case show(String)
            case special
            case list
        }
        let shadowing = RouteTable<Shadowed>([
            ("GET", "/things/{}", { .show($0[0]) }),
            ("GET", "/things/special", { _ in .special }),  // never reached with GET: the pattern is first
            ("POST", "/things/special", { _ in .special }),
            ("GET", "/things", { _ in .list }),
        ])
        #expect(try shadowing.match(method: "GET", path: "/things/special") == .show("special"))
        #expect(try shadowing.match(method: "POST", path: "/things/special") == .special)
        #expect(try shadowing.match(method: "GET", path: "/things") == .list)
        // Written another way, the same path finds the same route the long way.
        #expect(try shadowing.match(method: "GET", path: "/things/") == .list)
        #expect(try shadowing.match(method: "GET", path: "//things") == .list)
        #expect(throws: HTTPError.methodNotAllowed(["GET"])) { try shadowing.match(method: "PUT", path: "/things") }
        #expect(shadowing.exact["/things/special"] == ["POST": .special])
        // A slash inside a pattern's segment: only the encoded path reaches it, never `/a/b`.
        let slashed = RouteTable<Shadowed>([("GET", "/x/a%2Fb", { _ in .list })])
        #expect(try slashed.match(method: "GET", path: "/x/a%2Fb") == .list)
        #expect(throws: HTTPError.noSuchRoute("/x/a/b")) { try slashed.match(method: "GET", path: "/x/a/b") }
    }

    @Test func aKnownPathWithAnotherMethodIs405NamingTheAllowedOnes() {
        #expect(throws: HTTPError.methodNotAllowed(["GET", "POST"])) {
            try table.match(method: "DELETE", path: "/things")
        }
        let refusal = HTTPError.methodNotAllowed(["GET", "POST"]).response
        #expect(refusal.status == 405)
        #expect(refusal.headers.contains { $0.0 == "Allow" && $0.1 == "GET, POST" })
    }

    @Test func anUnknownPathIs404NoSuchRoute() {
        for path in ["/", "/thing", "/things/t7/void/again", "/things/t7/cancel"] {
            #expect(throws: HTTPError.noSuchRoute(path)) { try table.match(method: "GET", path: path) }
        }
    }

    @Test func theErrorBodyIsJSONWithEveryCharacterOfTheMessageIntact() throws {
        let message = "quote \" backslash \\ newline \n bell \u{7} tab \t é 📦"
        let response = HTTPError(status: 422, code: "odd", message: message).response
        let body = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])
        #expect(body == ["error": "odd", "message": message])
        #expect(response.headers.allSatisfy { $0.0 != "Allow" })
    }
}
