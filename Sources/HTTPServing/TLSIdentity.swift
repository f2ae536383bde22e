import Foundation

/// What a server proves itself with over HTTPS: its certificate chain and private key, in PEM.
///
///     let identity = try TLSIdentity(certificateFile: "/etc/scanpick/server.crt", keyFile: "/etc/scanpick/server.key")
///     let server = try HTTPServer(listen: address, tls: identity) { request in … }
public struct TLSIdentity: Sendable, Equatable {
    public var certificateChainPEM: String
    public var privateKeyPEM: String

    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// Reads the certificate chain and the key; an error names the file and what is wrong with it.
    public init(certificateFile: String, keyFile: String) throws(TLSIdentityError) {
        certificateChainPEM = try Self.read(certificateFile, expecting: "CERTIFICATE")
        privateKeyPEM = try Self.read(keyFile, expecting: "PRIVATE KEY")
    }

    private static func read(_ path: String, expecting label: String) throws(TLSIdentityError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            if !FileManager.default.fileExists(atPath: path) { throw .unreadable(path, reason: "no such file") }
            throw .unreadable(path, reason: "permission denied")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("-----BEGIN "), text.contains(label + "-----"), !text.contains("\u{0}") else {
            throw .unreadable(path, reason: "not a PEM file holding a \(label.lowercased())")
        }
        return text
    }
}

/// A certificate or key file that cannot be used, with why.
public enum TLSIdentityError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        }
    }
}
