import ArgumentParsing
import ConfigFile
import Digest
import Foundation
import HTTPServing
import Server
import Wire

/// `scanpick setup server`: this machine a central ScanPick API server on `--database`.
enum SetupServer: Command {
    struct Arguments: CommandArguments {
        var database = Option<String>(
            "database", valueName: "URL|PATH",
            help: "postgres://… URL (or libpq connection string) of the server's database, or a SQLite file.")
        var listen = Option<ListenAddress>(
            "listen", valueName: "HOST:PORT", help: "Where the API listens.",
            default: ServerConfiguration.Defaults.listen,
            parse: { text throws(UsageError) in
                do { return try ListenAddress(parsing: text) } catch { throw UsageError(": \(error)") }
            })
        var org = Option<String?>(
            "org", valueName: "ORG", help: "An organisation the server serves (with --token-file).",
            parse: { text throws(UsageError) in
                if let problem = FieldRules.organisationProblem(text) { throw UsageError(": \(problem)") }
                return text
            })
        var tokenFile = Option<String?>(
            "token-file", valueName: "FILE",
            help: "A file holding ORG's token (the stations' too): the config keeps only its SHA-256.")
        var tlsCertificate = Option<String?>(
            "tls-certificate", valueName: "FILE",
            help: "The server's certificate chain (PEM), with --tls-key: the API is served over HTTPS.")
        var tlsKey = Option<String?>(
            "tls-key", valueName: "FILE", help: "The certificate's private key (PEM), readable by scanpick alone.")
        var allowPlainHTTP = Flag(
            "allow-plain-http",
            help: "Plain HTTP beyond this machine, for a load balancer in front that terminates TLS.")
        var common = SetupCommand.Common()
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "server",
            abstract: "Write /etc/scanpick/server.json for a central server, check it, and start scanpick-serve.",
            discussion: """
                Writes server.json (root:scanpick 0640) with the database and listen address, and with
                --org and --token-file that organisation with its token's SHA-256 (more: each one's
                tokenSha256 from scanpick token new), checks it as
                `config check` does (as the scanpick user too), then runs systemctl enable --now
                scanpick-serve, which migrates the database before it serves. Listening beyond this
                machine wants TLS (--tls-certificate and --tls-key), or a load balancer in front that
                terminates it (--allow-plain-http); see the README.
                Exit 0 when the server was set up, 1 when not (nothing is replaced unless --force).
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let installer = ConfigInstaller(folder: arguments[\.common.etc], shipped: arguments[\.common.shipped])
        var organisations: [String: Any] = [:]
        switch (arguments[\.org], arguments[\.tokenFile]) {
        case (let org?, let file?):
            let token = try NamedFile.readText(file, limit: 4096, secret: true)
            organisations[org] = ["tokenSha256": [SHA256.hex(of: token)]]
        case (nil, nil): break
        default: throw UsageError("--org and --token-file go together: the organisation and its token")
        }
        var config: [String: Any] = [
            "listen": arguments[\.listen].description, "database": arguments[\.database],
            "organisations": organisations,
        ]
        switch (arguments[\.tlsCertificate], arguments[\.tlsKey]) {
        case (let certificate?, let key?):
            config["tls"] = ["certificate": Self.absolute(certificate), "key": Self.absolute(key)]
        case (nil, nil): break
        default: throw UsageError("--tls-certificate and --tls-key go together: the certificate and its key")
        }
        if arguments[\.allowPlainHTTP] {
            guard config["tls"] == nil else {
                throw UsageError("--allow-plain-http is for a server without TLS: give it or the TLS files, not both")
            }
            config["allowPlainHTTP"] = true
        }
        let text = try SetupCommand.json(config)
        var (summary, warnings) = ("", [String]())
        let path = try installer.install("server.json", text: text, force: arguments[\.common.force]) { written in
            (summary, warnings) = try ConfigCommand.Check.checkServer(written)
            if let user = ServiceUser.defaultForCheck() { try ServiceUser.check(written, kind: "server", as: user) }
        }
        for warning in warnings { StandardStream.error.write("warning: \(warning)\n") }
        try SetupCommand.finish(path, summary: summary, unit: "scanpick-serve", noStart: arguments[\.common.noStart])
        return 0
    }

    /// `path` from the working folder: the config lives in /etc/scanpick, where a relative path
    /// would be read from.
    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
