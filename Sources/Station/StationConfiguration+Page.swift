import ConfigFile
import Foundation
import HTTPServing

/// Reading the station config's `page`: where it listens, who may reach it, and its secret.
extension StationConfiguration {
    /// `page`; its secret's file is added to `tokenFiles` (watched for changes).
    static func readPage(_ reader: inout ConfigReader, base: URL, tokenFiles: inout [String]) throws(ConfigError)
        -> PageSettings
    {
        var page = PageSettings()
        if var options = try reader.object("page") {
            let text = try options.string("listen", default: page.listen.description)
            do {
                page.listen = try ListenAddress(parsing: text)
            } catch {
                throw options.error("listen", "is not HOST:PORT (\(error.reason))")
            }
            page.allowRemote = try options.bool("allowRemote", default: page.allowRemote)
            guard page.listen.isLoopback || page.allowRemote else {
                throw options.error(
                    "listen", "is not a loopback address: set page.allowRemote to true to serve other machines")
            }
            for host in try options.strings("allowedHosts") ?? [] {
                guard (1...253).contains(host.utf8.count),
                    host.utf8.allSatisfy({ byte in
                        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                            || [0x2D, 0x2E, 0x3A, 0x5B, 0x5D].contains(byte)  // - . : [ ]
                    })
                else { throw options.error("allowedHosts", "has '\(host.prefix(40))', not a host name or address") }
                page.allowedHosts.append(host.lowercased())
            }
            if let file = try options.string("tokenFile").map({ resolve($0, in: base) }) {
                let secret: String
                do {
                    secret = try NamedFile.readText(file, secret: true)
                } catch {
                    throw options.error(
                        "tokenFile", error.othersMayChange ? "is refused: \(error)" : "cannot be read: \(error)")
                }
                guard secret.utf8.count >= 16, secret.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                    throw options.error("tokenFile", "must hold a secret of at least 16 visible ASCII characters")
                }
                try requirePrivate(file, "holds the page's secret", reader: options, key: "tokenFile")
                page.secret = secret
                tokenFiles.append(file)
            }
            guard !page.allowRemote || page.secret != nil else {
                throw options.error(
                    "tokenFile", "is required with page.allowRemote: the page's API needs a secret on the network")
            }
            try options.finish()
        }
        return page
    }
}
