import ArgumentParsing
import ConfigFile
import Digest
import Foundation
import Wire

/// `scanpick setup station`: this machine a pick station of `--org`, sending to `--server`.
enum SetupStation: Command {
    struct Arguments: CommandArguments {
        var server = Option<String>(
            "server", valueName: "URL", help: "The central server's base URL (http://… or https://…).")
        var org = Option<String>(
            "org", valueName: "ORG", help: "The organisation this station picks for.",
            parse: { text throws(UsageError) in
                if let problem = FieldRules.organisationProblem(text) { throw UsageError(": \(problem)") }
                return text
            })
        var tokenFile = Option<String>(
            "token-file", valueName: "FILE", help: "A file holding the organisation's token (scanpick token new).")
        var name = Option<String?>(
            "name", valueName: "NAME", help: "The station's name on the fleet screen (default: the host name).")
        var database = Option<String>(
            "database", valueName: "PATH", help: "The station's queue.",
            default: DatabaseFolder.packagedDataFolder + "/station.sqlite")
        var common = SetupCommand.Common()
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "station",
            abstract: "Write /etc/scanpick/station.json for this pick station, check it, and start scanpick-station.",
            discussion: """
                Copies the token into ORG.token beside the config (scanpick's, 0600, as the station wants
                a token file), writes station.json (worker "picker",
                scanning on, the page on 127.0.0.1:8377; add "scanners" and "camera" afterwards as the
                README says; root:scanpick 0640), checks them as `config check` does (as the
                scanpick user too), then runs systemctl enable --now scanpick-station. Exit 0 when the
                station was set up, 1 when not (nothing is replaced unless --force).
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let installer = ConfigInstaller(folder: arguments[\.common.etc], shipped: arguments[\.common.shipped])
        let org = arguments[\.org]
        let token = try NamedFile.readText(arguments[\.tokenFile], limit: 4096, secret: true)
        // The organisation's name makes the file's when it is a plain one (it may hold any text).
        let plain = org.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
        let tokenName =
            plain && !org.hasPrefix(".") ? "\(org).token" : "organisation-\(SHA256.hex(of: org).prefix(12)).token"
        let tokenPath = URL(fileURLWithPath: installer.folder + "/" + tokenName).standardizedFileURL.path
        if URL(fileURLWithPath: arguments[\.tokenFile]).standardizedFileURL.path != tokenPath {
            try installer.install(tokenName, text: token + "\n", secret: true, force: arguments[\.common.force]) { _ in
            }
        }
        let name = arguments[\.name] ?? hostName()
        let text = try SetupCommand.json([
            "station": name, "worker": "picker", "server": arguments[\.server], "database": arguments[\.database],
            "organisations": [org: ["tokenFile": tokenPath, "scanning": ["enabled": true]]],
        ])
        var (summary, warnings) = ("", [String]())
        let path = try installer.install("station.json", text: text, force: arguments[\.common.force]) { written in
            (summary, warnings) = try ConfigCommand.Check.checkStation(written)
            if let user = ServiceUser.defaultForCheck() { try ServiceUser.check(written, kind: "station", as: user) }
        }
        for warning in warnings { StandardStream.error.write("warning: \(warning)\n") }
        try SetupCommand.finish(path, summary: summary, unit: "scanpick-station", noStart: arguments[\.common.noStart])
        return 0
    }

    /// This machine's name without its domain (`gethostname`: no name lookup, which may hang offline).
    static func hostName() -> String {
        var bytes = [CChar](repeating: 0, count: 256)
        guard gethostname(&bytes, bytes.count - 1) == 0 else { return "" }
        let name = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.split(separator: ".").first.map(String.init) ?? ""
    }
}
