import ArgumentParsing
import Digest
import Foundation
import Wire

/// `scanpick token new --org ORG`: a fresh bearer token and the hash that goes in the server config.
enum TokenCommand: Command {
    static let spec = CommandSpec(
        name: "token",
        abstract: "Make a new API token for an organisation (prints the token and its SHA-256).",
        discussion: """
            The server configuration stores only the SHA-256 of each token (organisations.ORG.tokenSha256),
            so a leaked config leaks no token. Give the token to the station (its config's token or
            tokenFile) and add the hash to the server's config.
            """,
        options: [
            .value("org", valueName: "ORG", help: "The organisation the token acts for. Required."),
            .flag("json", help: "Print {\"org\", \"token\", \"tokenSha256\"}."),
        ],
        arguments: [ArgumentSpec(name: "new", help: "The only action: make a new token.")])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        guard arguments.positionals == ["new"] else {
            throw UsageError("the only action is 'new' (scanpick token new --org ORG)")
        }
        guard let org = arguments.value("org"), !org.isEmpty else { throw UsageError("--org ORG is required") }
        var generator = SystemRandomNumberGenerator()  // getrandom(2): cryptographically secure
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token =
            "spk_"
            + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
                of: "/", with: "_"
            )
            .replacingOccurrences(of: "=", with: "")
        let hash = SHA256.hex(of: token)
        if arguments.has("json") {
            var line = JSONObjectWriter()
            line.add("org", string: org)
            line.add("token", string: token)
            line.add("tokenSha256", string: hash)
            StandardStream.output.write(line.finished() + "\n")
        } else {
            StandardStream.output.write(
                """
                organisation: \(org)
                token:        \(token)
                tokenSha256:  \(hash)

                Server config:  "organisations": {"\(org)": {"tokenSha256": ["\(hash)"]}}
                Keep the token secret; it is shown only now.

                """)
        }
        return 0
    }
}
