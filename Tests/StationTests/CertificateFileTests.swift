import ConfigFile
import Foundation
import TestSupport
import Testing

@testable import Station

/// What `tls.caFile` may hold and how `config trust-ca` writes it: the trust store is read by
/// every user and every TLS client of the machine, so only well-formed certificates go there.
@Suite struct CertificateFileTests {
    func configuration(caFile: String, in folder: TemporaryDirectory) throws -> StationConfiguration {
        let json =
            #"{"station": "s", "worker": "w", "server": "https://x", "tls": {"caFile": "\#(caFile)"}, "organisations": {"a": {"token": "t"}}}"#
        return try StationConfiguration.load(path: try folder.writePrivate("station.json", bytes: Array(json.utf8)))
    }

    func refusal(caFile: String, in folder: TemporaryDirectory) -> String {
        do {
            _ = try configuration(caFile: caFile, in: folder)
            return "accepted"
        } catch let error as ConfigError {
            return error.key == "tls.caFile" ? error.problem : "wrong key: \(error)"
        } catch {
            return "\(error)"
        }
    }

    @Test func onlyWellFormedCertificatesAreAccepted() async throws {
        let certificates = try await TestCertificates()
        let folder = certificates.folder
        let authority = try String(contentsOfFile: certificates.authority, encoding: .utf8)
        let key = try String(contentsOfFile: folder.file("ca.key"), encoding: .utf8)
        #expect(try configuration(caFile: certificates.authority, in: folder).certificateAuthorityFile != nil)

        // A CA with its key appended (a common bundle) would publish the key.
        _ = try folder.write("with-key.pem", text: authority + key)
        #expect(refusal(caFile: "with-key.pem", in: folder).contains("private key"))
        // Junk inside a block would make OpenSSL refuse the whole system bundle.
        let junk = "-----BEGIN CERTIFICATE-----\nnot base64!!\n-----END CERTIFICATE-----\n"
        _ = try folder.write("junk.pem", text: authority + junk)
        #expect(refusal(caFile: "junk.pem", in: folder).contains("block 2 is not a base64 X.509"))
        // A truncated certificate (its DER shorter than its header says).
        let lines = authority.split(separator: "\n")
        _ = try folder.write("cut.pem", text: (lines.prefix(3) + lines.suffix(1)).joined(separator: "\n"))
        #expect(refusal(caFile: "cut.pem", in: folder).contains("not a base64 X.509"))
        _ = try folder.write("open.pem", text: String(authority.prefix(200)))
        #expect(refusal(caFile: "open.pem", in: folder).contains("no -----END CERTIFICATE-----"))
        _ = try folder.write("crl.pem", text: "-----BEGIN X509 CRL-----\nAA==\n-----END X509 CRL-----\n")
        #expect(refusal(caFile: "crl.pem", in: folder).contains("only -----BEGIN CERTIFICATE----- blocks"))
        _ = try folder.write("none.pem", text: "just text\n")
        #expect(refusal(caFile: "none.pem", in: folder).contains("no PEM certificate"))
        // A bundle larger than a token's limit is fine; one over the CA limit is refused by size.
        _ = try folder.write("many.pem", text: String(repeating: authority, count: 200))
        #expect(try SystemTrust.certificates(inFile: folder.file("many.pem")).count == 200)
        _ = try folder.write("huge.pem", text: String(repeating: authority, count: 2000))
        #expect(refusal(caFile: "huge.pem", in: folder).contains("over 1024 KiB"))
    }

    /// A FIFO named as a file would block the reader until a writer came: start-up, `config
    /// check` and a reload would hang. It is refused at once, as are devices.
    @Test func aFIFOOrADeviceIsRefusedWithoutWaiting() throws {
        let folder = try TemporaryDirectory()
        #expect(mkfifo(folder.file("token.fifo"), 0o600) == 0)
        do {
            _ = try NamedFile.readText(folder.file("token.fifo"))
            Issue.record("read a FIFO")
        } catch {
            #expect(error.problem == "is not a regular file (a FIFO, device or socket)")
        }
        #expect(refusal(caFile: "/dev/zero", in: folder).contains("not a regular file"))
        #expect(refusal(caFile: "token.fifo", in: folder).contains("not a regular file"))
    }

    /// `trust-ca` writes re-encoded certificates as a new file: no key or stray text from the
    /// operator's file, mode 0644, and a link at the target is replaced rather than followed.
    @Test func installWritesOnlyTheCertificatesAndNeverFollowsALink() async throws {
        let certificates = try await TestCertificates()
        let folder = certificates.folder
        let authority = try String(contentsOfFile: certificates.authority, encoding: .utf8)
        let parsed = try SystemTrust.certificates(inPEM: "Bag Attributes: x\n" + authority)
        // The product's own openssl check (Foundation's Process, in this process): one short child.
        #expect(try SystemTrust.opensslRefusal(of: parsed) == nil)

        let original = try folder.write("original.key", text: "secret\n")
        chmod(original, 0o600)
        let target = folder.file("scanpick-s.crt")
        #expect(symlink(original, target) == 0)
        try SystemTrust.install(parsed, as: target)
        var info = stat()
        #expect(lstat(target, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(info.st_mode & 0o777 == 0o644)
        #expect(try String(contentsOfFile: original, encoding: .utf8) == "secret\n")
        #expect(stat(original, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let installed = try String(contentsOfFile: target, encoding: .utf8)
        #expect(!installed.contains("Bag Attributes"))
        #expect(try SystemTrust.certificates(inPEM: installed) == parsed)
        #expect(SystemTrust.trusts(certificatesIn: certificates.authority, bundle: target))
        #expect(!SystemTrust.trusts(certificatesIn: certificates.serverCertificate, bundle: target))

        // Shaped like DER but not a certificate: openssl has the last word before anything is installed.
        let shaped = PEMCertificate(der: [0x30, 0x03, 0x30, 0x01, 0x00])
        #expect(PEMCertificate.isCertificateShaped(shaped.der))
        let refusal = try SystemTrust.opensslRefusal(of: parsed + [shaped])
        #expect(refusal?.contains("certificate 2") == true)
    }
}
