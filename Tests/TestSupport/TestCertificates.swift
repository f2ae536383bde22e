import Foundation

/// A throw-away certificate authority and a server certificate it signed for 127.0.0.1 and
/// localhost, made with the `openssl` command, for HTTPS tests.
///
///     let certificates = try TestCertificates()
///     // certificates.serverCertificate, certificates.serverKey, certificates.authority
public struct TestCertificates: Sendable {
    public let folder: TemporaryDirectory
    /// The CA's certificate (PEM): what a client trusts.
    public let authority: String
    public let serverCertificate: String
    public let serverKey: String

    public init() async throws {
        folder = try TemporaryDirectory("scanpick-tls")
        authority = folder.file("ca.pem")
        serverCertificate = folder.file("server.pem")
        serverKey = folder.file("server.key")
        let extensions = try folder.write(
            "server.ext", text: "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", folder.file("ca.key"), "-out", authority, "-days", "2", "-subj", "/CN=ScanPick test CA",
            ],
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", serverKey,
                "-out", folder.file("server.csr"), "-subj", "/CN=127.0.0.1",
            ],
            [
                "x509", "-req", "-in", folder.file("server.csr"), "-CA", authority, "-CAkey", folder.file("ca.key"),
                "-CAcreateserial", "-out", serverCertificate, "-days", "2", "-extfile", extensions,
            ],
        ]
        for step in steps {
            let run = try await ProcessRunner.run("/usr/bin/openssl", step, in: folder.path)
            guard run.status == 0 else { throw ServerProcessError(message: "openssl \(step[0]): \(run.standardError)") }
        }
    }
}
