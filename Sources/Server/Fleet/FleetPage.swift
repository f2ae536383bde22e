import Foundation
import HTTPServing

/// The shift lead's page `scanpick serve` serves at `/fleet`: plain HTML, CSS and JavaScript from
/// `Sources/Server/FleetPage/`, no build step, no outside assets. The page holds no data and no
/// token: it signs in once (`POST /fleet/session`, whose cookie it cannot read), reads
/// `GET /api/stations` and refreshes itself, and clears a station's call for help when asked.
/// Served with a content security policy that allows only its own files and requests to this
/// server.
struct FleetPage: Sendable {
    private let files: [String: File]

    private struct File: Sendable {
        var type: String
        var bytes: [UInt8]
    }

    /// Loads the page's files from the build's resources.
    init() throws {
        var files: [String: File] = [:]
        for (name, type) in [
            ("fleet.html", "text/html; charset=utf-8"), ("fleet.css", "text/css"), ("fleet.js", "text/javascript"),
        ] {
            guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "FleetPage"),
                let data = FileManager.default.contents(atPath: url.path)
            else { throw StoreOpenError("the fleet page's file \(name) is missing from the build") }
            files[name] = File(type: type, bytes: [UInt8](data))
        }
        self.files = files
    }

    /// The headers every file goes with: nothing from elsewhere, no framing, no caching.
    static let headers = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store"),
    ]

    func response(_ name: String) -> HTTPResponse {
        guard let file = files[name] else { return HTTPError.noSuchRoute("/fleet/" + name).response }
        return HTTPResponse(status: 200, headers: [("Content-Type", file.type)] + Self.headers, body: file.bytes)
    }
}
