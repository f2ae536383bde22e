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
    /// The most bytes a `tls.caFile` may hold (Debian's whole bundle is about 200 KiB).
    public static let maxFileBytes = 1024 * 1024

    /// The certificates of the CA file at `path`, checked as ``certificates(inPEM:)`` does.
    public static func certificates(inFile path: String) throws(CertificateFileError) -> [PEMCertificate] {
        let text: String
        do {
            text = try NamedFile.readText(path, limit: maxFileBytes)
        } catch {
            throw .unreadable(error)
        }
        return try certificates(inPEM: text)
    }

    /// The certificates of a CA file's PEM text. Throws unless the text holds at least one
    /// certificate and nothing but certificates: `update-ca-certificates` appends a file as it is
    /// to a bundle every user can read, so a private key must never be installed, and one block
    /// that is not base64 DER makes OpenSSL refuse the whole bundle (every TLS client on the
    /// machine then fails). Text outside the blocks (OpenSSL's "Bag Attributes") is ignored.
    public static func certificates(inPEM text: String) throws(CertificateFileError) -> [PEMCertificate] {
        var certificates: [PEMCertificate] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("-----BEGIN ") {
                guard !line.contains("PRIVATE KEY") else { throw .privateKey }
                guard line == "-----BEGIN CERTIFICATE-----" else { throw .otherBlock(line) }
                guard body == nil else { throw .unterminated(certificates.count + 1) }
                body = ""
            } else if line.hasPrefix("-----END ") {
                guard let base64 = body, line == "-----END CERTIFICATE-----" else { throw .otherBlock(line) }
                guard let der = Data(base64Encoded: base64).map(Array.init), PEMCertificate.isCertificateShaped(der)
                else { throw .notACertificate(certificates.count + 1) }
                certificates.append(PEMCertificate(der: der))
                body = nil
            } else if body != nil {
                body? += line
            }
        }
        guard body == nil else { throw .unterminated(certificates.count + 1) }
        guard !certificates.isEmpty else { throw .noCertificate }
        return certificates
    }

    /// Whether every certificate of the CA file at `path` is in the system bundle.
    public static func trusts(certificatesIn path: String, bundle: String = bundle) -> Bool {
        guard let wanted = try? certificates(inFile: path),
            let installed = try? String(contentsOfFile: bundle, encoding: .utf8)
        else { return false }
        let blocks = installed.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
        let trusted = Set(
            blocks.compactMap { block -> [UInt8]? in
                guard let end = block.range(of: "-----END CERTIFICATE-----") else { return nil }
                let base64 = block[..<end.lowerBound].filter { !$0.isWhitespace }
                return Data(base64Encoded: String(base64)).map(Array.init)
            })
        return wanted.allSatisfy { trusted.contains($0.der) }
    }

    /// What to tell a person whose `tls.caFile` is not trusted yet.
    public static func notInstalled(_ path: String, config: String) -> String {
        "tls.caFile \(path) is not in this machine's trust store (\(bundle)), the only one the station's HTTPS client reads on Linux: run `sudo scanpick config trust-ca --config \(config)` (it installs it and runs update-ca-certificates)"
    }
}

/// One certificate of a PEM file, as DER bytes that passed a shape check.
public struct PEMCertificate: Equatable, Hashable, Sendable {
    /// The certificate's DER encoding.
    public let der: [UInt8]

    /// The certificate as a PEM block, re-encoded from ``der`` (64 characters a line, as OpenSSL writes).
    public var pem: String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }

    /// Whether `der` is shaped like an X.509 certificate: one ASN.1 SEQUENCE exactly as long as
    /// its header says, whose content starts with another SEQUENCE (the to-be-signed part). This
    /// catches truncated, concatenated and non-certificate blocks; `openssl x509` checks the rest
    /// when `trust-ca` installs the file.
    static func isCertificateShaped(_ der: [UInt8]) -> Bool {
        guard der.count >= 4, der[0] == 0x30 else { return false }
        var header = 2
        var length = Int(der[1])
        if der[1] >= 0x80 {
            let lengthBytes = Int(der[1] & 0x7F)
            guard (1...3).contains(lengthBytes), der.count > 2 + lengthBytes else { return false }
            length = der[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
            header = 2 + lengthBytes
        }
        return length > 0 && header + length == der.count && der[header] == 0x30
    }
}

/// Why a `tls.caFile` cannot be trusted as it is.
public enum CertificateFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case privateKey
    case otherBlock(String)
    case notACertificate(Int)
    case unterminated(Int)
    case noCertificate
    case unreadable(NamedFileError)

    public var description: String {
        switch self {
        case .privateKey:
            "holds a private key: a CA file is installed where every user can read it, so it must hold only the CA's certificate (copy just its -----BEGIN CERTIFICATE----- blocks)"
        case .otherBlock(let line): "holds \(line): only -----BEGIN CERTIFICATE----- blocks belong in a CA file"
        case .notACertificate(let number):
            "certificate block \(number) is not a base64 X.509 certificate (installed, it would break every TLS client on this machine)"
        case .unterminated(let number): "certificate block \(number) has no -----END CERTIFICATE----- line"
        case .noCertificate: "holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        case .unreadable(let error): error.problem
        }
    }
}
