import ArgumentParsing
import Foundation
import Station

extension ConfigCommand {
    /// `scanpick config trust-ca`: installs the station's `tls.caFile` in the machine's trust store.
    enum TrustCA: Command {
        struct Arguments: CommandArguments {
            var station = StationFile()
        }

        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "trust-ca",
                abstract: "Install the station config's tls.caFile in this machine's trust store (as root).",
                discussion: """
                    On Linux the station's HTTPS client (URLSession on libcurl) trusts only the system store,
                    \(SystemTrust.bundle). This writes the certificates of tls.caFile (only they: a file with a
                    private key is refused) to \(SystemTrust.localFolder)/scanpick-STATION.crt, checks them with
                    openssl and runs update-ca-certificates; a running station notices the store's change within a
                    second (no restart or SIGHUP needed).
                    """)
        }

        static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
            let configuration = try StationConfiguration.load(path: arguments[\.station.config])
            guard let file = configuration.certificateAuthorityFile else {
                throw StationCommandError("the station config has no tls.caFile: nothing to trust")
            }
            if SystemTrust.trusts(certificatesIn: file) {
                StandardStream.output.write("\(file) is already trusted by this machine\n")
                return 0
            }
            let certificates: [PEMCertificate]
            do {
                certificates = try SystemTrust.certificates(inFile: file)
            } catch {
                throw StationCommandError("tls.caFile \(file) \(error)")
            }
            if let refusal = try SystemTrust.opensslRefusal(of: certificates) {
                throw StationCommandError("tls.caFile \(file): \(refusal); nothing was installed")
            }
            let name = configuration.station.unicodeScalars.map {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" ? Character($0) : "_"
            }
            let target = "\(SystemTrust.localFolder)/scanpick-\(String(name)).crt"
            do {
                try FileManager.default.createDirectory(
                    atPath: SystemTrust.localFolder, withIntermediateDirectories: true)
                try SystemTrust.install(certificates, as: target)
            } catch {
                throw StationCommandError("cannot install \(file) as \(target) (run as root): \(error)")
            }
            let update = Process()
            update.executableURL = URL(fileURLWithPath: "/usr/sbin/update-ca-certificates")
            try update.run()
            update.waitUntilExit()
            guard update.terminationStatus == 0, SystemTrust.trusts(certificatesIn: file) else {
                throw StationCommandError("update-ca-certificates did not add \(target) to \(SystemTrust.bundle)")
            }
            StandardStream.output.write("installed \(target); this machine now trusts the server's CA\n")
            return 0
        }
    }
}
