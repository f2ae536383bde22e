import ConfigFile
import Foundation

/// The machine's TLS trust store, the only one the station's HTTPS client reads: on Linux,
/// URLSession runs on libcurl, which Debian builds to trust `/etc/ssl/certs/ca-certificates.crt`
/// and offers no per-session CA setting. A private CA named by `tls.caFile` is trusted once it is
/// installed there (`scanpick config trust-ca`, which runs `update-ca-certificates`).
///
///     if !SystemTrust.trusts(certificatesIn: "/etc/scanpick/ca.pem") { … }
public enum SystemTrust {
    /// The bundle libcurl reads.
    public static let bundle = "/etc/ssl/certs/ca-certificates.crt"
    /// Where local CAs go for `update-ca-certificates` (its files must end in `.crt`).
    public static let localFolder = "/usr/local/share/ca-certificates"

    /// The certificates of a PEM file, each as its base64 body without line breaks.
    public static func certificates(inPEM text: String) -> [String] {
        var bodies: [String] = []
        var current: String?
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line == "-----BEGIN CERTIFICATE-----" {
                current = ""
            } else if line == "-----END CERTIFICATE-----" {
                if let body = current, !body.isEmpty { bodies.append(body) }
                current = nil
            } else if current != nil {
                current? += line
            }
        }
        return bodies
    }

    /// Whether every certificate of the PEM file at `path` is in the system bundle.
    public static func trusts(certificatesIn path: String, bundle: String = bundle) -> Bool {
        guard let wanted = try? String(contentsOfFile: path, encoding: .utf8),
            let installed = try? String(contentsOfFile: bundle, encoding: .utf8)
        else { return false }
        let certificates = Self.certificates(inPEM: wanted)
        let trusted = Set(Self.certificates(inPEM: installed))
        return !certificates.isEmpty && certificates.allSatisfy(trusted.contains)
    }

    /// What to tell a person whose `tls.caFile` is not trusted yet.
    public static func notInstalled(_ path: String, config: String) -> String {
        "tls.caFile \(path) is not in this machine's trust store (\(bundle)), the only one the station's HTTPS client reads on Linux: run `sudo scanpick config trust-ca --config \(config)` (it installs it and runs update-ca-certificates)"
    }
}
