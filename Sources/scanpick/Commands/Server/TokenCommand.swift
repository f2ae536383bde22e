import ArgumentParsing
import Foundation
import JSONText
import Server
import Wire

/// `scanpick token new --org ORG`: a fresh bearer token and the hash that goes in the server config.
enum TokenCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "token", abstract: "Make API tokens for the server's organisations.", subcommands: [New.self])
    }

    /// `scanpick token new`.
    enum New: Command {
        struct Arguments: CommandArguments {
            var org = Option<String>(
                "org", valueName: "ORG", help: "The organisation the token acts for.",
                parse: { text throws(UsageError) in
                    guard !text.isEmpty else { throw UsageError("ORG is required") }
                    if let problem = FieldRules.organisationProblem(text) { throw UsageError(": \(problem)") }
                    return text
                })
            var json = Flag("json", help: "Print {\"org\", \"token\", \"tokenSha256\"}.")
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "new",
                abstract: "Make a new API token for an organisation (prints the token and its SHA-256).",
                discussion: """
                    The server configuration stores only the SHA-256 of each token (organisations.ORG.tokenSha256),
                    so a leaked config leaks no token. Give the token to the station (its config's token or
                    tokenFile) and add the hash to the server's config.
                    """)
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let org = arguments[\.org]
            let made = APIToken()
            let (token, hash) = (made.secret, made.sha256)
            if arguments[\.json] {
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
}
